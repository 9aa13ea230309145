tests = [
    lambda: int("12.5"),
    lambda: [1, 2][5],
    lambda: {"a": 1}["b"],
    lambda: "abc" + 5,
    lambda: None.split(),
    lambda: float("x1"),
    lambda: [].index(3),
    lambda: "a".join([1, 2]),
    lambda: len(5),
    lambda: {}.pop("k"),
    lambda: 1 / 0,
    lambda: "abc".index("z"),
]
for t in tests:
    try:
        t()
    except Exception as e:
        print(f"{type(e).__name__}: {e}")
