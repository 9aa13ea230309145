names = ["alpha", "beta", "gamma", "delta"]
scores = [88, 92, 79]
print(list(zip(names, scores)))
print(dict(zip(names, scores)))
for i, (n, s) in enumerate(zip(names, scores), start=1):
    print(f"{i}. {n.capitalize():<6} {s:>3} {'*' * (s // 10)}")
lookup = {n: i for i, n in enumerate(names)}
print(lookup, {v: k for k, v in lookup.items()}[2])
from itertools import zip_longest
print(list(zip_longest(names, scores, fillvalue=0)))
matrix = [[1, 2, 3], [4, 5, 6]]
print(list(map(list, zip(*matrix))), [sum(col) for col in zip(*matrix)])
a, *rest = names
print(a, rest, *scores, sep=" | ")
