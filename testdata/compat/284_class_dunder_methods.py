class Vec:
    __slots__ = ("x", "y")
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)
    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)
    def __eq__(self, o):
        return isinstance(o, Vec) and (self.x, self.y) == (o.x, o.y)
    def __hash__(self):
        return hash((self.x, self.y))
    def __lt__(self, o):
        return (self.x, self.y) < (o.x, o.y)
    def __repr__(self):
        return f"Vec({self.x}, {self.y})"
    def __iter__(self):
        yield self.x
        yield self.y
    def __bool__(self):
        return bool(self.x or self.y)
a, b = Vec(1, 2), Vec(3, 4)
print(a + b, a * 3, a == Vec(1, 2), a != b, sorted([b, a]), list(a), bool(Vec(0, 0)))
print(len({a, Vec(1, 2)}), max(a, b), tuple(b))
