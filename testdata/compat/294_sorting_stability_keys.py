records = [("bob", "B", 3), ("amy", "A", 3), ("cat", "B", 1), ("dan", "A", 2), ("eve", "B", 3)]
by_score = sorted(records, key=lambda r: r[2], reverse=True)
print([r[0] for r in by_score])
print([r[0] for r in sorted(records, key=lambda r: (r[1], -r[2], r[0]))])
from operator import itemgetter, attrgetter
print([r[0] for r in sorted(records, key=itemgetter(1, 2))])
print(sorted(["b10", "a2", "b9", "a10"], key=lambda s: (s[0], int(s[1:]))))
print(sorted(["B", "a", "C", "b"]), sorted(["B", "a", "C", "b"], key=str.casefold))
print(sorted([3.5, -1, 2, 0.0]), sorted([[2, 1], [1, 9], [1, 2]]), sorted("hello"))
print(sorted({"x": 3, "y": 1}.items(), key=itemgetter(1)))
