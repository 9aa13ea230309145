flags = [True, False, True, True]
print(sum(flags), flags.count(True), any(flags), all(flags))
print(True + True, True * 3, int(True), float(False))
n_pos = sum(x > 0 for x in [-1, 2, 3, -4])
print(n_pos)
print(max(True, 0), min(False, 1), True == 1, False == 0)
scores = {"a": 3, "b": 0}
print({k: bool(v) for k, v in scores.items()})
