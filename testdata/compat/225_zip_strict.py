names = ["a", "b", "c"]
scores = [1, 2, 3]
print(list(zip(names, scores, strict=True)))
print(dict(zip(names, scores)))
for i, (n, s) in enumerate(zip(names, scores), start=1):
    print(i, n, s)
pairs = list(zip(*[(1, "x"), (2, "y")]))
print(pairs)
try:
    list(zip(names, [1, 2], strict=True))
except ValueError as e:
    print("ValueError:", e)
try:
    list(zip([1, 2, 3], [1, 2, 3, 4], strict=True))
except ValueError as e:
    print("ValueError:", e)
