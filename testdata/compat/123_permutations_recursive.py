def perms(xs):
    if len(xs) <= 1:
        return [xs[:]]
    out = []
    for i in range(len(xs)):
        rest = xs[:i] + xs[i + 1:]
        for p in perms(rest):
            out.append([xs[i]] + p)
    return out
print(perms([1, 2, 3]))
print(len(perms(list("abcd"))))
def subsets(xs):
    if not xs:
        return [[]]
    rest = subsets(xs[1:])
    return rest + [[xs[0]] + r for r in rest]
print(sorted(subsets([1, 2, 3]), key=lambda s: (len(s), s)))
def edit_distance(a, b, memo=None):
    if memo is None:
        memo = {}
    key = (len(a), len(b))
    if key in memo:
        return memo[key]
    if not a or not b:
        r = len(a) + len(b)
    elif a[-1] == b[-1]:
        r = edit_distance(a[:-1], b[:-1], memo)
    else:
        r = 1 + min(edit_distance(a[:-1], b, memo), edit_distance(a, b[:-1], memo), edit_distance(a[:-1], b[:-1], memo))
    memo[key] = r
    return r
print(edit_distance("kitten", "sitting"), edit_distance("", "abc"))
