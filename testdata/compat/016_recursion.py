def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
print([fib(i) for i in range(15)])
def flatten(x):
    out = []
    for item in x:
        if isinstance(item, list):
            out.extend(flatten(item))
        else:
            out.append(item)
    return out
print(flatten([1, [2, [3, [4, 5]], 6], [[7]]]))
def depth(d):
    if not isinstance(d, dict) or not d:
        return 0
    return 1 + max(depth(v) for v in d.values())
print(depth({"a": {"b": {"c": 1}}, "d": 2}))
memo = {}
def ways(n):
    if n <= 1:
        return 1
    if n in memo:
        return memo[n]
    memo[n] = ways(n - 1) + ways(n - 2)
    return memo[n]
print(ways(80))
