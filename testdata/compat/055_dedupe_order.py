items = ["b", "a", "b", "c", "a", "d"]
seen = set()
ordered = []
for x in items:
    if x not in seen:
        seen.add(x)
        ordered.append(x)
print(ordered)
print(list(dict.fromkeys(items)))
from collections import Counter
c = Counter(items)
print([k for k, v in c.items() if v > 1])
print(sorted(c, key=lambda k: (-c[k], k)))
pairs = [(1, "x"), (2, "y"), (1, "x"), (3, "z")]
print(sorted(set(pairs)))
print(len(items) - len(set(items)), "duplicates")
