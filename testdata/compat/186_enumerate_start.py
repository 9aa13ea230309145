steps = ["load data", "inspect", "search", "summarize", "submit"]
for n, step in enumerate(steps, 1):
    print(f"Step {n}/{len(steps)}: {step}")
print(list(enumerate("abc", start=10)))
indexed = dict(enumerate(steps))
print(indexed[2])
for i, (a, b) in enumerate(zip(steps, steps[1:])):
    if i > 1:
        break
    print(f"{a} -> {b}")
print([i for i, s in enumerate(steps) if "s" in s])
