class Shape:
    def __init__(self, name):
        self.name = name
    def area(self):
        return 0
    def describe(self):
        return f"{self.name} with area {self.area():.2f}"
class Rect(Shape):
    def __init__(self, w, h):
        super().__init__("rect")
        self.w, self.h = w, h
    def area(self):
        return self.w * self.h
class Square(Rect):
    def __init__(self, s):
        super().__init__(s, s)
        self.name = "square"
class Circle(Shape):
    def __init__(self, r):
        super().__init__("circle")
        self.r = r
    def area(self):
        return 3.14159 * self.r ** 2
shapes = [Rect(2, 3), Square(2), Circle(1)]
for s in shapes:
    print(s.describe())
print([isinstance(s, Rect) for s in shapes], sum(s.area() for s in shapes))
