from collections import defaultdict
records = [
    ("engineering", "alice", 120000), ("sales", "bob", 70000), ("engineering", "carol", 135000),
    ("marketing", "dan", 80000), ("sales", "eve", 72000), ("engineering", "frank", 99000),
]
by_dept = defaultdict(list)
totals = defaultdict(int)
for dept, name, salary in records:
    by_dept[dept].append(name)
    totals[dept] += salary
for dept in sorted(by_dept):
    names = by_dept[dept]
    print(f"{dept:<12} n={len(names)} avg={totals[dept] / len(names):>10,.2f} {', '.join(sorted(names))}")
nested = defaultdict(lambda: defaultdict(int))
for dept, name, salary in records:
    nested[dept][salary // 50000 * 50000] += 1
print({k: dict(v) for k, v in nested.items()})
print(dict(totals), by_dept["hr"], len(by_dept))
