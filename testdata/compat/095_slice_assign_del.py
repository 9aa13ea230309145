xs = list(range(10))
xs[2:5] = ["a", "b"]
print(xs)
xs[:2] = []
print(xs)
del xs[::2]
print(xs)
del xs[1:3]
print(xs)
ys = [1, 2, 3]
ys[len(ys):] = [4, 5]
print(ys)
d = {"a": 1, "b": 2, "c": 3}
for k in ["a", "c"]:
    del d[k]
print(d)
