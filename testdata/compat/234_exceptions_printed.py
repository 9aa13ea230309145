errors = []
tests = [
    lambda: {"a": 1}["b"],
    lambda: [1, 2][5],
    lambda: "count: " + 5,
    lambda: None.strip(),
    lambda: int("x"),
    lambda: 1 / 0,
    lambda: float("abc"),
    lambda: [].pop(),
    lambda: {}.popitem(),
    lambda: "abc".index("z"),
    lambda: [1, 2].index(3),
    lambda: undefined_name,
]
for t in tests:
    try:
        t()
    except Exception as e:
        print(type(e).__name__, "|", e, "|", repr(e))
