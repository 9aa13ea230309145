from functools import reduce, lru_cache, partial, cmp_to_key
print(reduce(lambda a, b: a * b, range(1, 8)), reduce(lambda acc, w: acc + len(w), ["ab", "cde"], 0))
@lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(80), fib.cache_info().hits > 0)
def power(base, exp):
    return base ** exp
square = partial(power, exp=2)
print([square(i) for i in range(5)], square.keywords)
def compare(a, b):
    if len(a) != len(b):
        return len(a) - len(b)
    return (a > b) - (a < b)
print(sorted(["bb", "a", "ccc", "ab", "b"], key=cmp_to_key(compare)))
