from collections import defaultdict
records = [
    {"id": 1, "dept": "eng", "salary": 120000, "name": "Ann"},
    {"id": 2, "dept": "ops", "salary": 90000, "name": "Bo"},
    {"id": 3, "dept": "eng", "salary": 135000, "name": "Cy"},
    {"id": 4, "dept": "sales", "salary": 70000, "name": "Di"},
    {"id": 5, "dept": "ops", "salary": 95000, "name": "Ed"},
]
by_dept = defaultdict(list)
for r in records:
    by_dept[r["dept"]].append(r)
for dept, rs in sorted(by_dept.items()):
    avg = sum(r["salary"] for r in rs) / len(rs)
    print(f"{dept}: n={len(rs)} avg={avg:,.2f} names={', '.join(r['name'] for r in rs)}")
print(dict(by_dept).keys())
print(len(by_dept))
