grid = [
    "..#..",
    ".....",
    "...#.",
]
found = None
for r, row in enumerate(grid):
    for c, ch in enumerate(row):
        if ch == "#" and r > 0:
            found = (r, c)
            break
    if found:
        break
print(found)
count = 0
for row in grid:
    for ch in row:
        if ch != "#":
            continue
        count += 1
print(count)
pairs = [(a, b) for a in range(4) for b in range(4) if a < b and (a + b) % 2 == 1]
print(pairs)
