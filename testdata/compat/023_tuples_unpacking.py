point = (3, 4)
x, y = point
print(x, y)
a, b = b, a = 1, 2
print(a, b)
first, *rest = [1, 2, 3, 4]
print(first, rest)
*head, last = "hello"
print(head, last)
a, *mid, z = range(6)
print(a, mid, z)
pairs = [("a", 1), ("b", 2)]
for name, (val) in pairs:
    print(name, val)
for i, (k, v) in enumerate(pairs):
    print(i, k, v)
t = (1,)
print(t, len(t), (1, 2) + (3,), tuple([1, 2]), tuple("ab"))
print(divmod(7, 2), max((1, "b"), (1, "a")))
u = 1, 2, 3
print(u, type(u).__name__)
swap = [1, 2]
swap[0], swap[1] = swap[1], swap[0]
print(swap)
