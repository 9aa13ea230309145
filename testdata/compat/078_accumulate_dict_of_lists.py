logs = [
    ("svc-a", "error", 3), ("svc-b", "warn", 1), ("svc-a", "warn", 2),
    ("svc-c", "error", 5), ("svc-b", "error", 4), ("svc-a", "error", 1),
]
summary = {}
for svc, level, n in logs:
    entry = summary.setdefault(svc, {"error": 0, "warn": 0})
    entry[level] += n
for svc in sorted(summary):
    e = summary[svc]
    print(f"{svc}: errors={e['error']:>2} warns={e['warn']:>2} total={sum(e.values())}")
worst = max(summary.items(), key=lambda kv: kv[1]["error"])
print("worst:", worst[0], worst[1])
print(sorted(summary, key=lambda s: -sum(summary[s].values())))
