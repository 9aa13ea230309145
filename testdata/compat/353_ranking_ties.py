scores = {"ann": 91, "bob": 85, "cat": 91, "dan": 70, "eve": 85, "fay": 99}
ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
rank = 0
prev = None
out = []
for i, (name, s) in enumerate(ranked, 1):
    if s != prev:
        rank = i
        prev = s
    out.append(f"{rank}. {name} ({s})")
print("\n".join(out))
dense = {s: r for r, s in enumerate(sorted(set(scores.values()), reverse=True), 1)}
print({n: dense[s] for n, s in scores.items()})
pct = {n: round(100 * sum(v < s for v in scores.values()) / (len(scores) - 1)) for n, s in scores.items()}
print(pct)
