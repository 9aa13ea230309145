values = ["10", "x", "3.5", "7"]
nums = []
bad = []
for v in values:
    if v.isdigit():
        nums.append(int(v))
    else:
        bad.append(v)
print(nums, bad)
try:
    result = 10 / 0
except ZeroDivisionError as e:
    print("error:", e)
try:
    [1, 2, 3].index(9)
except ValueError as e:
    print("ValueError:", e)
try:
    int("abc")
except (TypeError, ValueError) as e:
    print(type(e).__name__, e)
try:
    raise ValueError("custom message")
except Exception as e:
    print(repr(e))
