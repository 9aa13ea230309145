import csv, io
data = """date,product,units,price
2024-01-03,widget,4,2.50
2024-01-03,gadget,1,10.00
2024-01-04,widget,,2.50
2024-01-05,"gizmo, deluxe",2,7.25
2024-01-05,gadget,3,10.00
"""
reader = csv.DictReader(io.StringIO(data))
totals = {}
skipped = 0
for row in reader:
    try:
        amount = int(row["units"]) * float(row["price"])
    except ValueError:
        skipped += 1
        continue
    totals[row["product"]] = totals.get(row["product"], 0) + amount
print(reader.fieldnames, skipped)
for product, amt in sorted(totals.items(), key=lambda kv: -kv[1]):
    print(f"{product:<15}{amt:>8.2f}")
out = io.StringIO()
w = csv.writer(out)
w.writerow(["product", "total"])
w.writerows(sorted(totals.items()))
print(out.getvalue(), end="")
