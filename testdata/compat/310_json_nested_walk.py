data = json.loads('{"a": {"b": [1, {"c": 2, "d": [3, 4]}], "e": null}, "f": true, "g": "str"}')
def walk(obj, path="$"):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from walk(v, f"{path}[{i}]")
    else:
        yield path, obj
for p, v in walk(data):
    print(f"{p:<14} {v!r}")
leaves = dict(walk(data))
print(sum(v for v in leaves.values() if isinstance(v, int) and not isinstance(v, bool)))
print(json.dumps(data, separators=(",", ":")))
