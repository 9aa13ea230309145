xs = [5, 3, 8]
xs.append(1)
xs.extend([9, 2])
xs.insert(0, 7)
print(xs, len(xs))
print(xs.pop(), xs.pop(0), xs)
xs.remove(8)
print(xs, xs.index(1), xs.count(3))
xs.reverse()
print(xs)
ys = xs.copy()
ys.sort()
print(xs, ys)
print(xs + ys, [0] * 3, [[0] * 2 for _ in range(2)])
xs[1:3] = ["a", "b", "c"]
print(xs)
del xs[0]
print(xs, xs[-1], 3 in xs)
