from collections import defaultdict
records = [("eng", "ann", 120), ("ops", "bo", 90), ("eng", "cy", 150), ("hr", "di", 70), ("ops", "ed", 110)]
by_dept = defaultdict(list)
for dept, name, salary in records:
    by_dept[dept].append((name, salary))
print(dict(by_dept))
totals = defaultdict(int)
for dept, _, salary in records:
    totals[dept] += salary
for dept in sorted(totals, key=totals.get, reverse=True):
    print(f"{dept:<5}{totals[dept]:>6}")
nested = defaultdict(lambda: defaultdict(int))
for dept, name, salary in records:
    nested[dept][name[0]] += 1
print({k: dict(v) for k, v in nested.items()})
print(by_dept["missing"], len(by_dept))
print(repr(totals)[:30])
