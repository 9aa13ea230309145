d = {"a": 1, "b": 2, "c": 3}
for k in list(d):
    if d[k] % 2:
        del d[k]
print(d)
try:
    for k in d:
        d["new" + k] = 0
except RuntimeError as e:
    print("RuntimeError:", e)
counts = {}
for w in "to be or not to be".split():
    counts[w] = counts.get(w, 0) + 1
print(counts)
print(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
print(next(iter(counts)), list(counts.keys())[-1])
keys = counts.keys()
counts["zz"] = 9
print(len(keys), "zz" in keys)
