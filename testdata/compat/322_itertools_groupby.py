from itertools import groupby, chain, accumulate, combinations, product, islice
sales = [("2024-01", "a", 3), ("2024-01", "b", 5), ("2024-02", "a", 2), ("2024-03", "b", 7), ("2024-03", "c", 1)]
for month, grp in groupby(sales, key=lambda r: r[0]):
    g = list(grp)
    print(month, len(g), sum(r[2] for r in g))
print(list(accumulate([r[2] for r in sales])))
print(list(accumulate([3, 1, 4, 1, 5], max)))
print(list(chain.from_iterable([[1, 2], [3], []])), list(chain("ab", [1])))
print(list(combinations("abc", 2)), len(list(product(range(3), repeat=2))))
print(list(islice((x * x for x in range(100)), 2, 10, 3)))
runs = [(k, len(list(g))) for k, g in groupby("aaabccdddd")]
print(runs)
