context = """to be or not to be that is the question whether tis nobler in the mind
to suffer the slings and arrows of outrageous fortune or to take arms"""
counts = {}
for w in context.split():
    counts[w] = counts.get(w, 0) + 1
top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:6]
for rank, (word, n) in enumerate(top, start=1):
    print(f"{rank}. {word:<8} {n}")
print(len(counts), sum(counts.values()))
print(max(counts, key=lambda w: (len(w), w)), min(counts, key=len))
