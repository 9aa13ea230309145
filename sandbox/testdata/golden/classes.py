from dataclasses import dataclass
class Counter2:
    count = 0
    def __init__(self, name):
        self.name = name
        self.items = []
        Counter2.count += 1
    def add(self, x):
        self.items.append(x)
        return self
    def __len__(self):
        return len(self.items)
    def __repr__(self):
        return f"Counter2({self.name!r}, {len(self)})"
    @property
    def size(self):
        return len(self.items)
    @staticmethod
    def kind():
        return "counter"
    @classmethod
    def make(cls, n):
        return cls(n)
c = Counter2("a").add(1).add(2)
d = Counter2.make("b")
print(c, d, len(c), c.size, Counter2.kind(), Counter2.count, isinstance(c, Counter2), type(c).__name__, str(c))
class Base:
    def __init__(self, x):
        self.x = x
    def describe(self):
        return f"Base({self.x})"
class Child(Base):
    def __init__(self, x, y):
        super().__init__(x)
        self.y = y
    def describe(self):
        return "Child:" + super().describe() + f"+{self.y}"
ch = Child(1, 2)
print(ch.describe(), isinstance(ch, Base), ch.x, ch.y)
class MyError(ValueError):
    pass
try:
    raise MyError("custom")
except ValueError as e:
    print("caught", type(e).__name__, e)
try:
    raise MyError("again")
except MyError as e:
    print("caught by name", repr(e))
@dataclass
class Point:
    x: int
    y: int = 0
    def norm1(self):
        return abs(self.x) + abs(self.y)
p = Point(3, -4)
print(p, p.norm1(), p == Point(3, -4), Point(1))
class V:
    def __init__(self, v): self.v = v
    def __add__(self, o): return V(self.v + o.v)
    def __eq__(self, o): return self.v == o.v
    def __lt__(self, o): return self.v < o.v
    def __str__(self): return f"V{self.v}"
print(V(1) + V(2), V(1) == V(1), sorted([V(3), V(1)], key=lambda x: x.v)[0], max([V(3), V(5)]), V(2) > V(1))
