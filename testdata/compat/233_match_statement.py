def classify(cmd):
    match cmd.split():
        case ["get", key]:
            return f"GET {key}"
        case ["set", key, value]:
            return f"SET {key}={value}"
        case ["del", *keys]:
            return f"DEL {len(keys)}"
        case []:
            return "empty"
        case _:
            return "unknown"
for c in ["get a", "set a 1", "del a b c", "", "foo bar baz qux"]:
    print(repr(c), classify(c))
def kind(x):
    match x:
        case int() | float() if x < 0:
            return "negative"
        case int():
            return "int"
        case str() as s:
            return f"str:{s}"
        case {"type": t}:
            return f"dict:{t}"
        case (a, b):
            return f"pair {a},{b}"
        case None:
            return "none"
    return "other"
print([kind(v) for v in [-1, 5, "hi", {"type": "x", "y": 1}, (1, 2), None, 2.5]])
