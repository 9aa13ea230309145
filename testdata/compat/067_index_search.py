lines = [
    "apple pie recipe",
    "banana bread recipe",
    "apple crumble",
    "cherry tart recipe",
    "grape juice",
]
index = {}
for i, line in enumerate(lines):
    for word in line.split():
        index.setdefault(word, []).append(i)
print(index["apple"], index["recipe"])
def search(*terms):
    sets = [set(index.get(t, [])) for t in terms]
    if not sets:
        return []
    result = sets[0]
    for s in sets[1:]:
        result = result & s
    return sorted(result)
print(search("apple"), search("apple", "recipe"), search("missing"))
for i in search("recipe"):
    print(f"  {i}: {lines[i]}")
print(sorted(index, key=lambda w: (-len(index[w]), w))[:3])
