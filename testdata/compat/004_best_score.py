scores = {"doc1": 0.42, "doc2": 0.91, "doc3": 0.77, "doc4": 0.91}
best = None
for key, score in scores.items():
    if best is None or score > best[0]:
        best = (score, key)
print(best)
ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
print(ranked)
print([k for k, v in ranked[:2]])
