# comment at top
"""Module docstring."""
x = 1; y = 2; z = x + y  # semicolons
print(z)
total = x + \
    y + \
    z
print(total)
values = [
    1,
    2,  # trailing comment
    3,
]
print(values)
a = b = c = 0
a += 1
print(a, b, c)
n: int = 5
names: list = ["q"]
def typed(v: int, s: str = "x") -> str:
    return s * v
print(typed(n), names)
if n > 3: print("inline if")
for i in range(2): print("inline for", i)
lst = [1, 2, 3, 4]
del lst[0]
del lst[-1]
print(lst)
d = {"k": 1, "j": 2}
del d["k"]
print(d)
print(0x10, 0o10, 0b10, 1_000_000, 1.5e3, .5, 5.)
pass
