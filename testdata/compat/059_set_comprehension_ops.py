docs = {
    "d1": "apple banana cherry",
    "d2": "banana cherry date",
    "d3": "cherry date elderberry",
}
vocab = {w for text in docs.values() for w in text.split()}
print(len(vocab), sorted(vocab))
sets = {k: set(v.split()) for k, v in docs.items()}
common = sets["d1"] & sets["d2"] & sets["d3"]
print(common)
print(sorted(sets["d1"] | sets["d3"]))
print(sorted(sets["d2"] - sets["d1"]))
def jaccard(a, b):
    return len(a & b) / len(a | b)
for x in sorted(sets):
    for y in sorted(sets):
        if x < y:
            print(x, y, round(jaccard(sets[x], sets[y]), 3))
print(sets["d1"].isdisjoint({"zebra"}), {"apple"} <= sets["d1"])
