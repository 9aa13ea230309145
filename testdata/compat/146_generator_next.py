def numbers():
    for i in range(1, 4):
        yield i * 10
it = numbers()
print(next(it), next(it))
print(list(it), next(it, "exhausted"))
def pairs(xs):
    it = iter(xs)
    for a in it:
        b = next(it, None)
        yield (a, b)
print(list(pairs("abcde")))
first_long = next((w for w in ["a", "bb", "ccc"] if len(w) > 1), None)
print(first_long)
