seen_count = 0
def visit(item):
    global seen_count
    seen_count += 1
    return item.upper()
print([visit(s) for s in "abc"], seen_count)
def stats(*nums, precision=2, **opts):
    mean = sum(nums) / len(nums)
    label = opts.get("label", "mean")
    return f"{label}={mean:.{precision}f}"
print(stats(1, 2, 4), stats(1, 2, precision=0, label="avg"))
def f(a, b=2, /, c=3, *, d=4):
    return a + b + c + d
print(f(1), f(1, 1, 1, d=1))
args = [1, 2]
kw = {"c": 10}
print(f(*args, **kw))
def defaults(x, acc=None):
    acc = acc or []
    acc.append(x)
    return acc
print(defaults(1), defaults(2))
