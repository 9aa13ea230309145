import statistics
from functools import reduce, lru_cache
xs = [2, 4, 4, 4, 5, 5, 7, 9]
print(statistics.mean(xs), statistics.median(xs), statistics.mode(xs))
print(round(statistics.pstdev(xs), 4), round(statistics.stdev(xs), 4))
print(reduce(lambda a, b: a * b, range(1, 6)))
print(reduce(lambda acc, w: acc + len(w), ["ab", "cde"], 0))
@lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(90))
