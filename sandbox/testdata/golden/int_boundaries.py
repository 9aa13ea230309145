# Integer arithmetic at the representation boundaries (int32, int64, bigger):
# every operator, conversion and hash/equality across them, against CPython.
import json

B = [2**31 - 1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 10**20]
V = [0, 1, 3, 7, 10**12] + B + [-x for x in [1, 3, 10**12] + B] + [-2**31, -2**31 - 1, -2**63, -2**63 - 1]

def show(name, f):
    try:
        r = f()
    except Exception as e:
        r = "%s: %s" % (type(e).__name__, e)
    print(name, r)

for a in V:
    show("unary %d" % a, lambda: (-a, +a, abs(a), ~a, bool(a), not a, a == 0, a != 0, 1 if a else 0))
    show("str %d" % a, lambda: (str(a), repr(a), "%d" % a, "%x" % a, f"{a:,}", f"{a:>25}", hex(a), bin(a)[:12]))
    show("int %d" % a, lambda: (int(str(a)), int(" %d " % a), int(hex(a), 16), int(float(a)), float(a), json.dumps(a), json.loads(str(a)), json.dumps({"k": a, "l": [a]})))
    show("shift %d" % a, lambda: [a << s for s in (0, 1, 31, 32, 33, 62, 63, 64)] + [a >> s for s in (0, 1, 31, 32, 62, 63, 64, 100)])
    show("pow %d" % a, lambda: [a ** e for e in (0, 1, 2, 3)] + [pow(a, 3, 1000000007)])
    show("hash %d" % a, lambda: (hash(a) == hash(a + 0), hash(a) == hash(float(a)) or float(a) != a, {a: 1}.get(a - 1 + 1), (a * 1) in {a}))
    t = 0
    for i in range(4):
        t += a
    show("acc %d" % a, lambda: (t, t - a, t // 4, sum([a, a, a, a]), sum(x for x in [a, a, a, a]), max([a, a - 1]), min(a, a + 1)))

def ops(a, b):
    r = []
    for f in (lambda: a + b, lambda: a - b, lambda: a * b, lambda: a // b, lambda: a % b, lambda: divmod(a, b), lambda: a / b,
              lambda: (a < b, a <= b, a == b, a != b, a > b, a >= b), lambda: (a & b, a | b, a ^ b),
              lambda: (a + 0.5 < b, a == float(b), float(a) < b, a * 1.0 == b)):
        try:
            r.append(f())
        except Exception as e:
            r.append("%s: %s" % (type(e).__name__, e))
    x = a
    x += b
    y = a
    y -= b
    z = a
    z *= b
    r.append((x, y, z))
    return r

for a in V:
    for b in V:
        print(a, b, ops(a, b))

# dict keys and sets built from values reached by different operations
d = {}
for a in V:
    d[a] = 1
    d[(a + 1) - 1] = d[(a + 1) - 1] + 1
    d[a * 2 // 2] += 1
print(len(d), sorted(d.values()) == [3] * len(V))
s = set()
for a in V:
    s.add(a)
    s.add(int(str(a)))
    s.add(-(-a))
print(len(s), sorted(s) == sorted(V))
print(sorted(V))
print(sorted(V, reverse=True) == sorted(V)[::-1])
total = 0
for i in range(3000000000, 3000100000):
    if i % 3 == 0 or i % 5 == 0:
        total += i * i
print(total, total % 1000000007, total // 7, -total // 7)
print(sum(x * x for x in range(2**31 - 5, 2**31 + 5)), max(x % 1000 for x in range(2**63 - 10, 2**63 - 1)))
print([x * 2**31 for x in range(-3, 4)], [x >> 1 for x in range(2**32 - 2, 2**32 + 2)])
print(list(range(2**63 - 3, 2**63 - 1)), 3000000000 in range(2**32), 2**40 + 3 in range(0, 2**41, 3), 2**62 - 2 in range(-2**62, 2**62, 2), range(-2**62, 2**62 - 7)[-1], len(range(-2**62, 2**62 - 7)), list(range(2**63 - 2, -2**63, -2**62)), range(0, 2**62, 2**60)[1:3], list(range(-2**31 - 2, -2**31 + 2)), len(range(0, 2**40, 2**20)))
