from collections import namedtuple
Row = namedtuple("Row", ["name", "dept", "score"])
rows = [Row("ann", "eng", 91), Row("bo", "ops", 78), Row(name="cy", dept="eng", score=85)]
print(rows[0])
print(rows[2].score, rows[1][1])
best = max(rows, key=lambda r: r.score)
print(best.name, best._asdict())
print(rows[0]._replace(score=100))
name, dept, score = rows[1]
print(name, dept, score)
Point = namedtuple("Point", "x y")
p = Point(3, 4)
print(p, p.x ** 2 + p.y ** 2, Point._fields)
print(p == (3, 4), tuple(p))
