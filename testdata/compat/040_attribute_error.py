items = [3, 1, 2]
items.sort()
print(items)
items.push(4)
