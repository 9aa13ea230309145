raw = """[
  {"id": 1, "name": "Widget", "price": 9.99, "tags": ["tools", "home"], "stock": {"warehouse": 10, "store": 2}},
  {"id": 2, "name": "Gadget", "price": 24.5, "tags": [], "stock": {"warehouse": 0, "store": 0}},
  {"id": 3, "name": "Doohickey", "price": null, "tags": ["misc"], "stock": {"warehouse": 5}}
]"""
items = json.loads(raw)
print(type(items).__name__, len(items))
for it in items:
    stock = sum(it["stock"].values())
    price = it["price"] if it["price"] is not None else float("nan")
    print(f"{it['id']:>3} {it['name']:<10} {price:>7.2f} stock={stock:<3} tags={','.join(it['tags']) or '-'}")
in_stock = [it["name"] for it in items if it["stock"].get("store", 0) > 0]
print(in_stock)
print(json.dumps(items[1], sort_keys=True))
print(json.dumps({"summary": {"count": len(items), "names": [i["name"] for i in items]}}, indent=2))
