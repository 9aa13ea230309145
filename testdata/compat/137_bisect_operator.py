import bisect
from operator import itemgetter, attrgetter
grades = [60, 70, 80, 90]
letters = "FDCBA"
print([letters[bisect.bisect(grades, s)] for s in [55, 60, 75, 95]])
xs = [1, 3, 5]
bisect.insort(xs, 4)
print(xs, bisect.bisect_left(xs, 4), bisect.bisect_right(xs, 4))
pairs = [("b", 2), ("a", 3), ("c", 1)]
print(sorted(pairs, key=itemgetter(1)), sorted(pairs, key=itemgetter(0)))
print(list(map(itemgetter(0), pairs)))
