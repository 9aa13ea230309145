context = """| name | qty | price |
|------|-----|-------|
| apple | 3 | 1.20 |
| pear | 10 | 0.55 |
| fig | 1 | 3.00 |"""
rows = [r.strip().strip("|").split("|") for r in context.splitlines()]
header = [h.strip() for h in rows[0]]
data = [dict(zip(header, (c.strip() for c in r))) for r in rows[2:]]
print(header)
print(data[0])
total = sum(int(d["qty"]) * float(d["price"]) for d in data)
print(f"total = {total:.2f}")
print(max(data, key=lambda d: float(d["price"]))["name"])
for d in data:
    print(f"{d['name']:<8}{int(d['qty']):>4}{float(d['price']):>8.2f}")
