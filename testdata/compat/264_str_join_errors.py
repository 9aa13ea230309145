ids = [1, 2, 3]
print(", ".join(str(i) for i in ids))
print("-".join("abc"), "".join([]), " | ".join(["a"]))
try:
    print(", ".join(ids))
except TypeError as e:
    print("TypeError:", e)
try:
    "x" * "3"
except TypeError as e:
    print("TypeError:", e)
try:
    len(5)
except TypeError as e:
    print("TypeError:", e)
try:
    [1, 2] + (3,)
except TypeError as e:
    print("TypeError:", e)
try:
    sorted([1, "a"])
except TypeError as e:
    print("TypeError:", e)
try:
    {"a": 1} + {"b": 2}
except TypeError as e:
    print("TypeError:", e)
try:
    None + 1
except TypeError as e:
    print("TypeError:", e)
