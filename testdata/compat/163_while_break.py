text = "alpha\nbeta\n\ngamma\ndelta\nEND\nignored\n"
lines = text.split("\n")
i = 0
collected = []
while True:
    if i >= len(lines):
        break
    line = lines[i]
    i += 1
    if not line:
        continue
    if line == "END":
        break
    collected.append(line.upper())
print(collected, i)

n = 27
steps = 0
while n != 1:
    n = n // 2 if n % 2 == 0 else 3 * n + 1
    steps += 1
print("collatz steps:", steps)
count = 0
while count < 3:
    count += 1
else:
    print("while-else ran, count =", count)
