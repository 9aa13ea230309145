a, b, *rest = [1, 2, 3, 4, 5]
print(a, b, rest)
first, *_, last = "hello"
print(first, last, _)
(x, y), z = (1, 2), 3
print(x, y, z)
a, b = b, a
print(a, b)
head, *tail = [1]
print(head, tail)
try:
    p, q = [1, 2, 3]
except ValueError as e:
    print("ValueError:", e)
try:
    p, q, r = [1, 2]
except ValueError as e:
    print("ValueError:", e)
i = j = 0
i += 1
print(i, j)
for k, (m, n) in enumerate([(1, 2), (3, 4)]):
    print(k, m + n)
