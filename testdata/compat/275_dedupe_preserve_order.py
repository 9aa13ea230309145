items = ["b", "a", "b", "c", "a", "d"]
print(list(dict.fromkeys(items)))
seen = set()
out = []
for x in items:
    if x not in seen:
        seen.add(x)
        out.append(x)
print(out)
recs = [{"id": 1, "v": "x"}, {"id": 2, "v": "y"}, {"id": 1, "v": "z"}]
uniq = {r["id"]: r for r in recs}
print(list(uniq.values()))
first = {}
for r in recs:
    first.setdefault(r["id"], r)
print(list(first.values()))
print(sorted(set(items)), len(items) - len(set(items)))
