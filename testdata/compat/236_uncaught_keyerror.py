counts = {"apple": 3, "pear": 1}
print(counts.get("kiwi", 0))
total = counts["apple"] + counts["kiwi"]
print(total)
