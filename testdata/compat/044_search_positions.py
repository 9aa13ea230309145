context = "The needle is here. Another needle there. No more needles? One more needle."
term = "needle"
positions = []
start = 0
while True:
    i = context.find(term, start)
    if i < 0:
        break
    positions.append(i)
    start = i + 1
print(positions)
for p in positions:
    lo = max(0, p - 10)
    hi = min(len(context), p + len(term) + 10)
    print(f"...{context[lo:hi]}...")
print(context.count(term))
import re
print([m.start() for m in re.finditer(r"needles?\b", context)])
