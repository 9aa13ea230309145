from dataclasses import dataclass, field
@dataclass
class Item:
    name: str
    price: float
    qty: int = 1
    tags: list = field(default_factory=list)
    def total(self):
        return self.price * self.qty
items = [Item("pen", 1.5, 4), Item("book", 12.0), Item("bag", 30.0, 1, ["travel"])]
print(items[0])
print(sum(i.total() for i in items))
print(Item("pen", 1.5, 4) == items[0], items[1].tags)
items[1].tags.append("gift")
print(items[1], items[2].tags)
print(sorted(items, key=lambda i: i.total())[-1].name)
