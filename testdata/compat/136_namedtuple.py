from collections import namedtuple
Point = namedtuple("Point", ["x", "y"])
p = Point(1, 2)
print(p, p.x + p.y, p[0], tuple(p))
Row = namedtuple("Row", "name score")
rows = [Row("a", 3), Row("b", 1), Row("c", 2)]
print(sorted(rows, key=lambda r: r.score))
print(max(rows, key=lambda r: r.score).name)
print(p._asdict(), p._replace(x=5))
x, y = p
print(x, y)
