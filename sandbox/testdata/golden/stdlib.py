import heapq
scores = {"a": 0.3, "b": 0.9, "c": 0.5, "d": 0.7, "e": 0.1}
print(heapq.nlargest(3, scores, key=scores.get))
print(heapq.nsmallest(2, scores.items(), key=lambda kv: kv[1]))
h = []
for name, s in scores.items():
    heapq.heappush(h, (s, name))
print([heapq.heappop(h)[1] for _ in range(3)])
nums = [5, 1, 8, 3]
heapq.heapify(nums)
print(nums[0], sorted(nums))
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
import math
print(math.comb(5, 2), math.perm(5, 2), math.prod([1, 2, 3, 4]))
print(math.isqrt(17), math.trunc(-2.7), math.copysign(3, -1))
print(math.pow(2, 10), math.atan2(1, -1), math.pow(2, 0.5))
try:
    math.pow(-8, 1 / 3)
except ValueError as e:
    print('ValueError:', e)
print(math.exp(1) == math.e, round(math.sin(math.pi / 2), 6), round(math.cos(0), 1))
print(math.fsum([0.1] * 10), sum([0.1] * 10))
print(math.isnan(float("nan")), math.isinf(math.inf), math.floor(-0.5), math.ceil(-0.5))
print(round(math.degrees(math.pi), 1), round(math.radians(180), 5), math.atan2(1, 1) * 4 == math.pi)
print(math.dist((0, 0), (3, 4)), math.log(math.e ** 2), math.pow(2, 10))
import textwrap
text = "The quick brown fox jumps over the lazy dog. " * 3
print(textwrap.shorten(text, width=40))
for line in textwrap.wrap(text, width=30):
    print(line)
print(textwrap.fill("a b c d e f", width=5))
print(textwrap.dedent("    x\n      y\n").rstrip())
template = "{name} has {n} items"
print(template.format_map({"name": "cart", "n": 3}))
import itertools
from itertools import count, permutations, product, chain, zip_longest
print(list(zip(count(1), "abc")), list(itertools.islice(count(5, 5), 3)))
print(list(permutations([1, 2, 3], 2))[:4], list(product("ab", [0, 1])), list(product([0, 1], repeat=2)))
print(list(chain.from_iterable([[1], [2, 3]])), list(chain([1], [2])), list(zip_longest("ab", [1], fillvalue="-")))
for i in count():
    if i > 2:
        break
from collections import deque
q = deque([1, 2])
q.append(3); q.appendleft(0)
print(q, len(q), q.popleft(), q.pop(), q, list(q), q[0])
seen = {1}
todo = deque([1])
order = []
while todo:
    n = todo.popleft()
    order.append(n)
    for m in (n * 2, n * 3):
        if m < 20 and m not in seen:
            seen.add(m)
            todo.append(m)
print(order, deque([1, 2, 3], maxlen=2))
class Bag:
    def __init__(self):
        self.xs = [1, 2]
    def __iter__(self):
        return iter(self.xs)
    def __contains__(self, x):
        return x in self.xs
    def __getitem__(self, i):
        return self.xs[i]
class Plain:
    pass
b = Bag()
print(list(b), 2 in b, b[0], [x * 2 for x in b], len(Plain.__name__))
p = Plain()
p.a = 1
print(p.a, hasattr(p, "a"), getattr(p, "b", "none"), vars(p) if False else "ok")
try:
    list(p)
except TypeError as e:
    print("TypeError")
