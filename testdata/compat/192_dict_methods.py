d = {"b": 2, "a": 1}
d["c"] = 3
d.update({"d": 4}, e=5)
print(d, list(d), list(d.keys())[:2], list(d.values())[-1])
print(d.pop("e"), d.pop("zz", None), d.setdefault("f", 6), d)
print(sorted(d), "a" in d, 2 in d.values())
for key in list(d):
    if d[key] % 2 == 0:
        del d[key]
print(d)
merged = {**d, "z": 26}
print(merged, len(merged))
print(d.items(), d.keys())
nested = {}
nested.setdefault("x", {}).setdefault("y", []).append(1)
print(nested)
copy = dict(d)
copy.clear()
print(copy, d)
