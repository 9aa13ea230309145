from itertools import chain, groupby, islice, combinations, permutations, product, accumulate, count
print(list(chain([1, 2], [3], (4, 5))))
print(list(chain.from_iterable([[1], [2, 3]])))
data = sorted(["apple", "avocado", "banana", "blueberry", "cherry"], key=lambda w: w[0])
for k, g in groupby(data, key=lambda w: w[0]):
    print(k, list(g))
print(list(islice(range(100), 3, 10, 2)))
print(list(combinations("abc", 2)))
print(len(list(permutations(range(4), 2))))
print(list(product([0, 1], repeat=2)))
print(list(accumulate([1, 2, 3, 4])))
c = count(10)
print(next(c), next(c))
