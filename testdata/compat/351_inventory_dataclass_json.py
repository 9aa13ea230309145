from dataclasses import dataclass, asdict
@dataclass
class Item:
    sku: str
    qty: int
    price: float
    def value(self) -> float:
        return round(self.qty * self.price, 2)
raw = '[{"sku": "A1", "qty": 3, "price": 2.5}, {"sku": "B2", "qty": 0, "price": 99.99}, {"sku": "C3", "qty": 12, "price": 0.333}]'
items = [Item(**d) for d in json.loads(raw)]
print(items[0], items[2].value())
print(json.dumps([asdict(i) for i in items if i.qty]))
print(sorted(items, key=Item.value, reverse=True)[0].sku)
print(sum(i.value() for i in items), {i.sku: i.value() for i in items})
try:
    Item(**{"sku": "X", "qty": 1})
except TypeError as e:
    print("TypeError:", e)
