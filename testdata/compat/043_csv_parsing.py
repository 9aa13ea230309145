raw = """date,region,amount
2024-01-01,north,120.50
2024-01-01,south,80.00
2024-01-02,north,99.99
2024-01-02,east,
2024-01-03,south,150.25"""
lines = raw.strip().split("\n")
header = lines[0].split(",")
rows = [dict(zip(header, l.split(","))) for l in lines[1:]]
print(header)
print(rows[0])
valid = [r for r in rows if r["amount"]]
print(len(rows), len(valid))
totals = {}
for r in valid:
    totals[r["region"]] = totals.get(r["region"], 0.0) + float(r["amount"])
for region in sorted(totals):
    print(f"{region:<6}{totals[region]:>10.2f}")
print(f"grand total: {sum(totals.values()):.2f}")
by_date = {}
for r in valid:
    by_date.setdefault(r["date"], []).append(r["region"])
print(by_date)
