text = "aaabccddddde"
i, runs = 0, []
while i < len(text):
    j = i
    while j < len(text) and text[j] == text[i]:
        j += 1
    runs.append((text[i], j - i))
    i = j
print(runs)
print("".join(f"{c}{n}" for c, n in runs))
stack, out = [], []
for ch in "(a(b)c)(d)":
    if ch == "(":
        stack.append(len(out))
    elif ch == ")":
        start = stack.pop()
        out.append("|")
    else:
        out.append(ch)
print("".join(out), stack)
n, steps = 100, 0
while n > 1 and steps < 1000:
    n = n // 2 if n % 2 == 0 else n * 3 + 1
    steps += 1
print(steps)
