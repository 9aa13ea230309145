from collections import Counter, defaultdict
orders = [
    {"id": 1, "customer": "ann", "items": [{"sku": "A", "qty": 2, "price": 3.5}, {"sku": "B", "qty": 1, "price": 10.0}]},
    {"id": 2, "customer": "bo", "items": [{"sku": "A", "qty": 1, "price": 3.5}]},
    {"id": 3, "customer": "ann", "items": [{"sku": "C", "qty": 4, "price": 1.25}]},
]
spend = defaultdict(float)
sku_qty = Counter()
for o in orders:
    for it in o["items"]:
        spend[o["customer"]] += it["qty"] * it["price"]
        sku_qty[it["sku"]] += it["qty"]
print(dict(spend))
print(sku_qty.most_common())
top = max(spend.items(), key=lambda kv: kv[1])
print(f"top customer: {top[0]} (${top[1]:,.2f})")
print(json.dumps(spend, indent=1, sort_keys=True))
avg_items = sum(len(o["items"]) for o in orders) / len(orders)
print(round(avg_items, 3))
