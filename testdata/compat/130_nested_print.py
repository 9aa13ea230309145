data = {"name": "O'Brien", "quote": 'He said "hi"', "path": "C:\\tmp", "tags": ("a", "b"), "empty": {}, "nums": [1.5, -0.0, 2e-9]}
print(data)
print(list(data.items())[:2])
print([data["name"], data["quote"]])
print(repr(data["path"]), str(data["path"]))
nested = [[["deep"]], {"x": {"y": {"z": None}}}]
print(nested)
print(str(nested) == repr(nested))
print({1: "int", "1": "str", (1,): "tuple", None: "none"})
