t = (1, 2, 3, 2)
print(t.count(2), t.index(3), t + (4,), t * 2, len(t), 2 in t)
single = (5,)
print(single, type(single).__name__, (5), tuple("ab"), tuple())
pts = [(1, 2), (0, 5), (1, 1)]
print(sorted(pts), min(pts), max(pts, key=lambda p: p[1]))
d = {(0, 0): "origin", (1, 2): "p"}
print(d[(1, 2)], d.get((9, 9)))
try:
    t[0] = 9
except TypeError as e:
    print("TypeError:", e)
nested = ((1, 2), [3, 4])
nested[1].append(5)
print(nested)
