def make_accumulator():
    items = []
    def add(x):
        items.append(x)
        return len(items)
    def total():
        return sum(items)
    return add, total

add, total = make_accumulator()
for v in [3, 4, 5]:
    add(v)
print(total())

def outer(xs):
    def helper(x):
        return x * x + offset
    offset = 1
    return [helper(x) for x in xs]
print(outer([1, 2, 3]))

cache = {}
def fib(n):
    if n in cache:
        return cache[n]
    r = n if n < 2 else fib(n - 1) + fib(n - 2)
    cache[n] = r
    return r
print(fib(50), len(cache))
