d = {"b": 2, "a": 1}
d.setdefault("c", []).append(1)
d.setdefault("c", []).append(2)
print(d)
d.update({"a": 10}, z=26)
print(d, d.pop("z"), d.pop("missing", None))
print(list(d.items())[:2], "a" in d, 10 in d.values())
merged = {**d, "b": 20, "new": True}
print(merged)
print(d | {"q": 1})
inv = {v: k for k, v in {"x": 1, "y": 2}.items()}
print(inv)
print(dict.fromkeys(["p", "q"], 0), dict(sorted({"b": 1, "a": 2}.items())))
print(sorted(d), len(d), d.get("nope"), list(reversed({"a": 1, "b": 2})))
print({k: v for k, v in d.items() if isinstance(v, int)})
