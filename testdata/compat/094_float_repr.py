vals = [0.1, 0.2, 0.1 + 0.2, 1 / 3, 2 / 3, 10 / 3, 1e-10, 123456789012345678.0, 1.5, 100.0, 3.0e8]
print(vals)
for v in vals:
    print(v, str(v), repr(v), round(v, 3))
print(sum(vals[:3]), max(vals), min(vals))
print(7 / 2, 8 / 2, 2 ** 0.5, 10 ** -2, 1e3 == 1000)
print([round(x, 2) for x in [1.005, 2.675, 0.125]])
print(float("inf") > 1e308, -1.0 * 0)
