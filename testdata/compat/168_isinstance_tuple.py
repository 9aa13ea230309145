data = {"name": "svc", "ports": [80, 443], "meta": {"owner": "ops"}, "tags": ("a", "b"),
        "ratio": 0.5, "count": 3, "enabled": True, "missing": None}

def describe(v, depth=0):
    pad = "  " * depth
    if isinstance(v, dict):
        for k, sub in v.items():
            print(f"{pad}{k}:")
            describe(sub, depth + 1)
    elif isinstance(v, (list, tuple)):
        print(f"{pad}{type(v).__name__} of {len(v)}: {v}")
    elif isinstance(v, bool):
        print(f"{pad}bool {v}")
    elif isinstance(v, (int, float)):
        print(f"{pad}number {v}")
    elif v is None:
        print(f"{pad}null")
    else:
        print(f"{pad}{type(v).__name__} {v!r}")

describe(data)
print(isinstance(True, int), isinstance(1, float), isinstance("s", str), type(3.0) is float)
