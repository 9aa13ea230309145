tests = [
    lambda: int("abc"),
    lambda: float("x1"),
    lambda: {"a": 1}["b"],
    lambda: [1][5],
    lambda: 1 / 0,
    lambda: 1 // 0,
    lambda: "a" + 1,
    lambda: None.upper(),
    lambda: undefined_thing,
]
for t in tests:
    try:
        t()
    except Exception as e:
        print(type(e).__name__, "|", e)
