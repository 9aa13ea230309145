def describe(v):
    if isinstance(v, bool):
        return f"bool {v}"
    if isinstance(v, int):
        return f"int {v:+d}"
    if isinstance(v, float):
        return f"float {v:.2f}"
    if isinstance(v, str):
        return f"str of {len(v)}"
    if isinstance(v, (list, tuple)):
        return f"{type(v).__name__} of {len(v)}: " + ", ".join(describe(x) for x in v)
    if isinstance(v, dict):
        return "dict with " + ", ".join(sorted(v))
    if v is None:
        return "nothing"
    return "other"
for v in [True, 3, -2.5, "hey", [1, "a"], (2.0,), {"b": 1, "a": 2}, None]:
    print(describe(v))
