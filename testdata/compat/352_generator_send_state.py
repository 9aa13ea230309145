def running_mean():
    total, n = 0.0, 0
    for x in [4, 8, 15, 16, 23, 42]:
        total += x
        n += 1
        yield round(total / n, 3)
print(list(running_mean()))
def take(n, it):
    out = []
    for x in it:
        if len(out) == n:
            break
        out.append(x)
    return out
print(take(3, running_mean()))
def flatten(xs):
    for x in xs:
        if isinstance(x, (list, tuple)):
            yield from flatten(x)
        else:
            yield x
print(list(flatten([1, [2, (3, [4])], [], 5])))
g = (c.upper() for c in "abc")
print(next(g), list(g), list(g))
print(any(x > 20 for x in running_mean()), all(isinstance(x, float) for x in running_mean()))
