docs = ["alpha beta", "beta gamma delta", "alpha", ""]
result = {
    "n_docs": len(docs),
    "empty": sum(1 for d in docs if not d.strip()),
    "avg_words": round(sum(len(d.split()) for d in docs) / len(docs), 2),
    "vocab": sorted({w for d in docs for w in d.split()}),
}
print(result)
for k, v in result.items():
    print(f"{k:>10}: {v}")
print(str(result)[:40])
print(repr(result["vocab"]))
