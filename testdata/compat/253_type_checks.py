values = [1, 2.0, "3", None, [4], {"5": 5}, (6,), True, b"7", {8}]
for v in values:
    print(type(v).__name__, type(v), isinstance(v, (int, float)))
print(type(None), type(len), type(lambda: 0).__name__)
print(callable(len), callable(3), hasattr("x", "upper"), getattr("x", "upper")())
print(getattr([], "nope", "default"))
print(str(None), bool(None), bool([]), bool("0"), bool(0.0), bool({}))
