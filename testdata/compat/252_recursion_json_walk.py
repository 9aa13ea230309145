doc = {"a": {"b": [1, {"c": "deep", "d": [2, 3]}], "e": None}, "f": "top"}
def walk(o, path=""):
    if isinstance(o, dict):
        for k, v in o.items():
            yield from walk(v, f"{path}.{k}" if path else k)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from walk(v, f"{path}[{i}]")
    else:
        yield path, o
for p, v in walk(doc):
    print(f"{p} = {v!r}")
def depth(o):
    if isinstance(o, dict):
        return 1 + max((depth(v) for v in o.values()), default=0)
    if isinstance(o, list):
        return 1 + max((depth(v) for v in o), default=0)
    return 0
print(depth(doc), depth({}), depth([]))
