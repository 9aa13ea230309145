a = {1, 2, 3, 4, 5}
b = {4, 5, 6, 7}
print(sorted(a & b), sorted(a | b), sorted(a - b), sorted(a ^ b))
print(a.issubset({1, 2, 3, 4, 5, 6}), {1, 2} <= a, {9} < a, a.isdisjoint({8, 9}))
seen = set()
dupes = []
for x in [3, 1, 3, 2, 1, 5]:
    if x in seen:
        dupes.append(x)
    seen.add(x)
print(dupes, len(seen), sorted(seen))
s = set("mississippi")
print(sorted(s), len(s))
tags1 = ["python", "go", "rust"]
tags2 = ["go", "java", "python"]
print(sorted(set(tags1) & set(tags2)), sorted(set(tags1).union(tags2)))
empty = set()
print(empty, len(empty), set([1, 1, 1]), {x % 3 for x in range(10)})
a.discard(99)
a.remove(1)
print(a, 2 in a, 1 not in a)
