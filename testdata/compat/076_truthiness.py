vals = [0, 1, "", "a", [], [0], {}, {"k": 1}, None, 0.0, (), set()]
print([bool(v) for v in vals])
print([v for v in vals if v])
x = None
y = x or "default"
print(y)
z = [] and "never"
print(z)
print(0 or None or "last", 1 and 2 and 3)
print(not [], not "x")
name = ""
print(name or "anonymous")
items = []
if not items:
    print("empty list")
count = 0
if count:
    print("never")
else:
    print("zero is falsy")
