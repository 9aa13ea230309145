counts = {}
for w in notes.split():
    counts[w] = counts.get(w, 0) + 1
print(counts["missing"])
