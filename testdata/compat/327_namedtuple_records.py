from collections import namedtuple
Row = namedtuple("Row", ["id", "name", "score"])
rows = [Row(1, "x", 3.5), Row(2, "y", 9.0), Row(3, "z", 6.25)]
print(rows[0], rows[0].name, rows[0][2])
best = max(rows, key=lambda r: r.score)
print(best._asdict(), best._replace(score=0))
print(Row._fields, Row(*["4", "w", 1]))
ids, names, scores = zip(*rows)
print(ids, names, sum(scores) / len(scores))
Point = namedtuple("Point", "x y", defaults=[0])
print(Point(1), Point(1, 2) == (1, 2), Point._make([5, 6]))
from typing import NamedTuple
class Hit(NamedTuple):
    doc: str
    score: float = 0.0
print(Hit("a"), sorted([Hit("b", 2), Hit("a", 3)], key=lambda h: -h.score))
