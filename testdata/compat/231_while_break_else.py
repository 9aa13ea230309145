context = "line a\nline b\nNEEDLE here\nline d"
lines = context.splitlines()
i = 0
while i < len(lines):
    if "NEEDLE" in lines[i]:
        print("found at", i)
        break
    i += 1
else:
    print("not found")
for target in ["zzz", "b"]:
    for j, l in enumerate(lines):
        if target in l:
            print(target, "->", j)
            break
    else:
        print(target, "-> none")
n = 27
steps = 0
while n != 1:
    n = n // 2 if n % 2 == 0 else 3 * n + 1
    steps += 1
print(steps)
k = 0
while True:
    k += 1
    if k % 7 == 0 and k % 5 == 0:
        break
print(k)
