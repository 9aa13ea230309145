employees = [
    {"name": "Zoe", "dept": "eng", "level": 3, "salary": 150},
    {"name": "Adam", "dept": "eng", "level": 3, "salary": 140},
    {"name": "Bea", "dept": "ops", "level": 2, "salary": 90},
    {"name": "Carl", "dept": "eng", "level": 1, "salary": 100},
    {"name": "Dana", "dept": "ops", "level": 2, "salary": 95},
]
ordered = sorted(employees, key=lambda e: (e["dept"], -e["level"], e["name"]))
for e in ordered:
    print(f'{e["dept"]:<4} L{e["level"]} {e["name"]:<5} {e["salary"]:>4}')
by_dept = {}
for e in employees:
    by_dept.setdefault(e["dept"], []).append(e["salary"])
print({d: (min(s), max(s), sum(s) / len(s)) for d, s in by_dept.items()})
print([e["name"] for e in sorted(employees, key=lambda e: e["salary"], reverse=True)[:2]])
