jsonl = """{"user": "a", "score": 10, "ts": "2024-01-01"}
{"user": "b", "score": 7, "ts": "2024-01-02"}
{"user": "a", "score": 3, "ts": "2024-01-03"}
not json at all
{"user": "c", "score": "n/a", "ts": "2024-01-04"}
{"user": "b", "score": 12}"""
good, bad = [], []
for lineno, line in enumerate(jsonl.splitlines(), 1):
    try:
        rec = json.loads(line)
        rec["score"] = int(rec["score"])
        good.append(rec)
    except json.JSONDecodeError as e:
        bad.append((lineno, f"json: {e.msg} at col {e.colno}"))
    except (ValueError, TypeError) as e:
        bad.append((lineno, f"value: {e}"))
print(len(good), bad)
scores = {}
for r in good:
    scores.setdefault(r["user"], []).append(r["score"])
print(scores)
print(max(scores, key=lambda u: sum(scores[u])), {u: sum(v) / len(v) for u, v in scores.items()})
print(json.dumps(good[-1]), good[-1].get("ts", "unknown"))
