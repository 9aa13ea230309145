records = [
    {"name": "a", "meta": {"score": "7"}},
    {"name": "b", "meta": {}},
    {"name": "c", "meta": {"score": "x"}},
    {"name": "d"},
]
scores = {}
for r in records:
    try:
        scores[r["name"]] = float(r["meta"]["score"])
    except KeyError as e:
        scores[r["name"]] = None
        print(r["name"], "missing", e)
    except ValueError as e:
        print(r["name"], "bad value:", e)
print(scores)
