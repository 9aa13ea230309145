from functools import reduce, partial, lru_cache
nums = [5, 3, 8, 1]
print(list(map(lambda n: n * 2, nums)), list(filter(lambda n: n > 3, nums)))
print(reduce(lambda a, b: a * b, nums), reduce(lambda a, b: a + b, [], 0))
print(list(map(str, nums)), "".join(map(str, nums)), list(map(int, "123")))
pow2 = partial(pow, 2)
print(pow2(10))
@lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(50))
print(list(map(lambda a, b: a + b, [1, 2], [10, 20, 30])))
print(sorted(nums, key=lambda n: -n), list(reversed(nums)))
