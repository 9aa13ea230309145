grid = [[(r * 3 + c) % 5 for c in range(4)] for r in range(3)]
print(grid)
flat = [x for row in grid for x in row]
print(flat, len(flat))
print([[row[i] for row in grid] for i in range(len(grid[0]))])
print({(r, c): v for r, row in enumerate(grid) for c, v in enumerate(row) if v == 0})
print([x if x % 2 else -x for x in flat[:6]])
pairs = [(a, b) for a in range(4) for b in range(a + 1, 4) if (a + b) % 2]
print(pairs)
words = ["apple", "bob", "kayak", "level", "test"]
print([w for w in words if w == w[::-1]], {len(w) for w in words}, sum(len(w) for w in words))
