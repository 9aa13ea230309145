d = {"b": 2, "a": 1}
d["c"] = 3
print(d)
print(list(d.keys()), list(d.values()))
print(d.get("z"), d.get("z", 0))
d.update({"a": 10, "e": 5})
print(d)
print(d.pop("b"), d)
print(d.setdefault("f", []), d)
print("a" in d, len(d))
inv = {v: k for k, v in d.items() if isinstance(v, int)}
print(inv)
merged = {**d, "g": 7}
print(merged)
print(dict(zip(["x", "y"], [1, 2])))
print(dict(a=1, b=2))
for k in sorted(d):
    print(k, end=" ")
print()
print(d.items())
