context = """Q: What is the capital of France? A: Paris
Q: Who wrote Hamlet? A: Shakespeare
Q: What is 2+2?   A:   4
Q: Unanswered question?
Q: Largest planet? A: Jupiter"""
pairs = re.findall(r"Q:\s*(.+?)\s*A:\s*(.+)", context)
for q, a in pairs:
    print(f"{q:<35} => {a}")
print(len(pairs))
unanswered = [l for l in context.splitlines() if "A:" not in l]
print(unanswered)
emails = "contact: john.doe@example.com, jane@test.org; bad@, x@y.co.uk"
print(re.findall(r"([\w.]+)@([\w.]+\.\w+)", emails))
print([m.group(0) for m in re.finditer(r"[\w.]+@[\w.]+\.\w+", emails)])
