def area(w, h):
    return w * h
dims = [(2, 3), (4, 5)]
print([area(*d) for d in dims])
kw = {"w": 7, "h": 2}
print(area(**kw))
first, second = dims
print(first, second)
(a, b), (c, d) = dims
print(a + b + c + d)
head, *tail = "one two three".split()
print(head, tail)
print(*dims)
print(*"abc", sep="|")
merged = [*dims, (6, 7)]
print(merged)
both = {**{"x": 1}, **{"y": 2}}
print(both)
