xs = [3, 1, 2]
xs.insert(0, 9); xs.insert(100, 7); xs.insert(-1, 5)
print(xs)
xs.extend(range(2)); xs.remove(1)
print(xs, xs.index(2), xs.count(0))
print(xs.pop(0), xs.pop(-2), xs)
xs.reverse(); print(xs)
ys = xs.copy(); ys.clear(); print(xs, ys)
print([1, 2] * 3, [[0] * 2] * 2, [0] * 0)
print([1, 2, 3] < [1, 3], [1, [2]] == [1, [2]], (1, 2) < (1, 2, 0))
try:
    xs.remove(42)
except ValueError as e:
    print("ValueError:", e)
print(sorted([3, 1, 2], reverse=True), xs.sort(), xs)
