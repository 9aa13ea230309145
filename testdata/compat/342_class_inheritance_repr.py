class Shape:
    name = "shape"
    def area(self):
        raise NotImplementedError(f"{type(self).__name__} must implement area")
    def __str__(self):
        return f"{self.name} with area {self.area():.2f}"
class Rect(Shape):
    name = "rect"
    def __init__(self, w, h):
        self.w, self.h = w, h
    def area(self):
        return self.w * self.h
    def __repr__(self):
        return f"Rect({self.w}, {self.h})"
class Square(Rect):
    name = "square"
    def __init__(self, s):
        super().__init__(s, s)
class Circle(Shape):
    def __init__(self, r):
        self.r = r
    def area(self):
        return math.pi * self.r ** 2
shapes = [Rect(2, 3), Square(4), Circle(1.5)]
for s in shapes:
    print(s, isinstance(s, Rect), type(s).__name__)
print(shapes[:2], sorted(shapes, key=lambda s: s.area())[0].name)
try:
    print(Shape())
except NotImplementedError as e:
    print("NotImplementedError:", e)
print(Square.__mro__[1].__name__, Square.name, Circle.name)
