from collections import Counter, defaultdict, OrderedDict
log = ["GET /a", "POST /b", "GET /a", "GET /c", "POST /b", "GET /a", "DELETE /a"]
methods = Counter(l.split()[0] for l in log)
paths = Counter(l.split()[1] for l in log)
print(methods)
print(paths.most_common())
combo = defaultdict(Counter)
for l in log:
    m, p = l.split()
    combo[p][m] += 1
for p in sorted(combo):
    print(p, dict(combo[p]))
od = OrderedDict()
od["z"] = 1
od["a"] = 2
print(list(od.keys()), dict(od))
print(Counter("mississippi").most_common(2))
