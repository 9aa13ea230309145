data = [3, 8, 1, 9, 4, 7]
print([x * x for x in data if x % 2])
print({x: x % 3 for x in data})
print(sorted({x % 3 for x in data}))
print([(i, j) for i in range(3) for j in range(i)])
print([c.upper() for c in "abc"])
print(sum(x for x in data if x > 3))
print(max(len(w) for w in ["aa", "b", "cccc"]))
print(", ".join(str(x) for x in data))
print([x if x > 4 else 0 for x in data])
print({k: v for k, v in zip("abc", range(3))})
words = ["apple", "bob", "kayak", "level", "test"]
print([w for w in words if w == w[::-1]])
grid = [[r * 3 + c for c in range(3)] for r in range(3)]
print(grid)
print([cell for row in grid for cell in row if cell % 2 == 0])
print(list(map(lambda p: p[0] * p[1], zip(data, data[1:]))))
