docs = [
    {"id": "d3", "score": 0.82, "len": 1200},
    {"id": "d1", "score": 0.95, "len": 800},
    {"id": "d7", "score": 0.82, "len": 300},
    {"id": "d2", "score": 0.40, "len": 5000},
]
ranked = sorted(docs, key=lambda d: (-d["score"], d["len"]))
print([d["id"] for d in ranked])
print([d["id"] for d in sorted(docs, key=lambda d: (d["score"], d["id"]), reverse=True)])
pairs = [("b", 2), ("a", 2), ("c", 1)]
print(sorted(pairs, key=lambda p: (p[1], p[0])))
print(sorted(pairs, key=lambda p: p[1], reverse=True))
print(max(docs, key=lambda d: d["len"])["id"], min(docs, key=lambda d: (d["score"], -d["len"]))["id"])
docs.sort(key=lambda d: d["id"])
print([d["id"] for d in docs])
print(sorted("Banana apple Cherry".split(), key=str.lower))
