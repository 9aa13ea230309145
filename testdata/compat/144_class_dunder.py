class Vector:
    def __init__(self, x, y):
        self.x = x
        self.y = y
    def __add__(self, other):
        return Vector(self.x + other.x, self.y + other.y)
    def __eq__(self, other):
        return self.x == other.x and self.y == other.y
    def __lt__(self, other):
        return (self.x, self.y) < (other.x, other.y)
    def __len__(self):
        return 2
    def __repr__(self):
        return f"Vector({self.x}, {self.y})"
    def __str__(self):
        return f"<{self.x}, {self.y}>"
a, b = Vector(1, 2), Vector(3, -1)
print(a + b, repr(a + b), a == Vector(1, 2), a != b)
print(sorted([b, a]), len(a), str(a), f"{b}", [a])
class Stack:
    def __init__(self):
        self.items = []
    def push(self, x):
        self.items.append(x)
        return self
    def __len__(self):
        return len(self.items)
    def __contains__(self, x):
        return x in self.items
    def __getitem__(self, i):
        return self.items[i]
s = Stack().push(1).push(2)
print(len(s), 2 in s, 5 in s, s[0], s[-1])
