def chunked(seq, n):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]

def numbered(lines):
    n = 0
    for line in lines:
        if not line.strip():
            continue
        n += 1
        yield n, line

print(list(chunked("abcdefg", 3)))
context = "first\n\nsecond\nthird\n"
for n, line in numbered(context.splitlines()):
    print(n, line)
gen = chunked([1, 2, 3, 4], 2)
print(next(gen), next(gen))
print(next(gen, "done"))
def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b
from itertools import islice
print(list(islice(fib(), 10)))
sq = (x * x for x in range(5))
print(sum(sq), sum(sq))
def gen_from():
    yield from range(3)
    yield from "ab"
print(list(gen_from()))
