def find(items, target):
    for i, it in enumerate(items):
        if it == target:
            return i
    return None
idx = find(["a", "b", "c"], "c")
if idx is not None:
    print("found at", idx)
missing = find([], "x")
print(missing is None, missing)
x = [1]
y = x
z = [1]
print(x is y, x is z, x == z)
print(True is True, None is None)
flag = False
print(flag is False, flag is not True)
