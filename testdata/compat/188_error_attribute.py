items = [3, 1, 2]
items.sort()
print(items)
total = items.sum()
