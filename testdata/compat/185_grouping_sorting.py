from collections import defaultdict
sales = [
    {"rep": "kim", "region": "west", "amount": 1200},
    {"rep": "lee", "region": "east", "amount": 800},
    {"rep": "kim", "region": "west", "amount": 300},
    {"rep": "max", "region": "east", "amount": 1500},
    {"rep": "lee", "region": "east", "amount": 450},
    {"rep": "nia", "region": "south", "amount": 999},
]
by_region = {}
for s in sales:
    by_region.setdefault(s["region"], []).append(s["amount"])
for region, amounts in sorted(by_region.items(), key=lambda kv: -sum(kv[1])):
    print(f"{region:<6} n={len(amounts)} total={sum(amounts):>5} avg={sum(amounts)/len(amounts):8.2f}")
rep_totals = defaultdict(int)
for s in sales:
    rep_totals[s["rep"]] += s["amount"]
top = sorted(rep_totals.items(), key=lambda kv: kv[1], reverse=True)[:2]
print(top)
print(max(sales, key=lambda s: s["amount"])["rep"])
