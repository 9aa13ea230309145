context = [f"doc{i:03d}: " + ("needle" if i == 137 else "hay") for i in range(200)]
lo, hi = 0, len(context)
probes = 0
def has_needle_upto(k):
    return any("needle" in d for d in context[:k])
while lo < hi:
    mid = (lo + hi) // 2
    probes += 1
    if has_needle_upto(mid + 1):
        hi = mid
    else:
        lo = mid + 1
print(lo, context[lo], probes)
print(next(i for i, d in enumerate(context) if d.endswith("needle")))
print(next((d for d in context if "pin" in d), None))
