# Differential audit: ints across int64/uint64 boundaries, division, sorting.
import json

def show(name, f):
    try:
        r = f()
    except Exception as e:
        r = "%s: %s" % (type(e).__name__, e)
    print(name, repr(r))

E = [2**31, 2**63, 2**64]
V = []
for e in E:
    for d in (-1, 0, 1):
        V += [e + d, -(e + d)]
V += [0, 1, -1, 2, -2, 3, -3, 7, -7]
for a in V:
    show("pow3 %d" % a, lambda: [pow(a, 2, 10**9 + 7), pow(a, 5, -97) if a else 0, pow(a, 0, 1), abs(a), divmod(a, 7), divmod(a, -7)])
    show("shift %d" % a, lambda: (a << 1, a >> 63, a >> 64, a << 63, ~a, -a, a & 0xFFFFFFFFFFFFFFFF, a | (1 << 64), a ^ -1))
    show("fmt %d" % a, lambda: ("%d" % a, "%5d|%-5d|%+d" % (a, a, a), f"{a}", f"{a:_}", f"{a:x}", f"{a:#o}", f"{a:e}", "%s %r" % (a, a), "%i %u" % (a, a)))
    show("int %d" % a, lambda: (int(str(a)), int("+%d" % a if a >= 0 else str(a)), int(str(a).replace("1", "1_", 1)) if "1" in str(a)[:-1] else a, json.dumps([a]), json.loads(json.dumps(a)) == a))
for a in V:
    for b in (V[:6] + [3, -3, 0]):
        show("div %d %d" % (a, b), lambda: (a / b, a // b, a % b, divmod(a, b), a ** 2 // b if b else 0))
# true division rounding of big operands
for a, b in [(2**63 + 1, 3), (10**20 + 1, 7), (2**64 - 1, 2**63 + 1), (-(2**63), 3), (2**53 + 1, 1), (2**53 + 3, 2), (10**30, 10**15 + 1), (1, 2**64), (2**1000, 3), (3, 2**1000), (2**63 - 1, 2**63 - 2), (-1, 2**63), (123456789123456789, 1000)]:
    show("truediv %d %d" % (a, b), lambda: (a / b, -a / b, a / -b))
# float // and % signs
for x, y in [(7.5, 2), (-7.5, 2), (7.5, -2), (-7.5, -2), (0.0, -3), (-0.0, 3), (1e308, 1e-308), (5, 0.0), (5.0, 0), (5, 0), (0, 0), (2**63, 2.0), (-1e-300, 1e300), (3, -0.5)]:
    show("fdiv %r %r" % (x, y), lambda: (x // y, x % y, divmod(x, y)))
# int vs float at 2^53+1
big = 2**53 + 1
show("cmp53", lambda: (big == float(big), big > float(big), big < 2.0**53 + 2, float(big) < big, [big] == [float(big)], big in {float(big)}, float(big) in {big}, max(big, float(big)), min(float(big), big)))
show("cmp64", lambda: (2**64 == 2.0**64, 2**64 + 1 > 2.0**64, -2**63 == -2.0**63, -2**63 - 1 < -2.0**63, 2**63 - 1 < 2.0**63, 2**63 - 1 == float(2**63 - 1)))
show("inf", lambda: (10**400 < float("inf"), -10**400 > float("-inf"), 10**400 == float("inf"), float("nan") < 1, 1 < float("nan")))
show("bool", lambda: (True + 2**63, True * -2**63, False - 2**63, True << 63, True / 3, True // -1, True % 2, -True ** 2, sum([True] * 5), True & 3, True | 2**64, True ^ True))
# hash equality via different routes
r = [2**40, 1 << 40, int("1099511627776"), (2**64 + 2**40) - 2**64, 2**40 * 1.0, (2**70 // 2**30), abs(-2**40), -(-(2**40)), 2**41 // 2, 2**39 + 2**39, int(1099511627776.0), 1099511627776]
show("routes", lambda: (len(set(r)), len({k: 1 for k in r}), len(set(hash(x) for x in r))))
r2 = [2**63, 1 << 63, int("9223372036854775808"), (2**63 - 1) + 1, 2**64 - 2**63, -(-2**63), abs(-2**63), 2**62 * 2, 9223372036854775808.0]
show("routes63", lambda: (len(set(r2)), len({k: 1 for k in r2}), {2**63: "a"}.get((2**63 - 1) + 1), (2**63 - 1 + 1) in {2**63}, [(2**62) * 2].index(2**63)))
r3 = [-2**63, -(1 << 63), int("-9223372036854775808"), (-2**63 + 1) - 1, -(2**63), ~(2**63 - 1), (-2**64) // 2]
show("routesm63", lambda: (len(set(r3)), {-2**63: 1}.get(~(2**63 - 1)), hash(-2**63) == hash(-(2**63)), hash(-1), hash(-2), hash(2**61 - 1), hash(2**61), hash(-2**61), hash(2**63), hash(-2**63), hash(2**64)))
# sorting
mixed = [3, 2.5, 2**63, 2**63 - 0.5, -2**63, -1e19, True, False, 0.0, -0, 1, 1.0, 2**53 + 1, 2.0**53, 2**64, 1.5e19]
show("sortmix", lambda: sorted(mixed))
show("sortmixr", lambda: sorted(mixed, reverse=True))
pairs = [(1, "a"), (0, "b"), (1, "c"), (0, "d"), (2**63, "e"), (2**63, "f"), (1.0, "g"), (True, "h"), (-0.0, "i"), (0, "j")]
show("stable", lambda: sorted(pairs, key=lambda p: p[0]))
show("stabler", lambda: sorted(pairs, key=lambda p: p[0], reverse=True))
show("stables", lambda: sorted(["b", "a", "B", "ab", "a", "A"], key=str.lower, reverse=True))
show("stablelen", lambda: sorted(["bb", "a", "cc", "d", "aa", ""], key=len, reverse=True))
L = [(k % 3, i) for i, k in enumerate([5, 2**63 + 5, 8, 2, 2**64 + 2, -1, -2**63 - 1])]
show("stablebig", lambda: sorted(L, key=lambda t: t[0], reverse=True))
show("sortbig", lambda: sorted([2**64, -2**64, 2**63 - 1, -2**63, 0, 2**63, -2**63 - 1, 5, -5], reverse=True))
xs = [9, 2**63, 3, 2**63, 1]; xs.sort(reverse=True); show("sortinplace", lambda: xs)
show("sortstr", lambda: sorted(["é", "e", "z", "Z", "", "a\x00", "a", "\U0001F600", "\uffff"]))
show("sortkeyint", lambda: sorted(["x10", "x9", "x100", "x-1"], key=lambda s: int(s[1:])))
show("json", lambda: (json.dumps(2**64), json.dumps(-2**63 - 1), json.dumps(10**30), json.dumps({"a": 2**100}), json.dumps([2**63 - 1, 1.0, 2**53 + 1.0]), json.loads("123456789012345678901234567890"), json.loads("-9223372036854775809")))
show("minmax", lambda: (max([2**63, 2**63 - 1, 1e19]), min([-2**63, -2**63 - 1, -1e19]), sum([2**62, 2**62, 2**62]), sum([2**63 - 1, 1, -1]), sum([0.5, 2**63]), sum(range(2**62, 2**62 + 4))))
show("intstr", lambda: (int("0x7fffffffffffffff", 16), int("0x8000000000000000", 0), int("-0b" + "1" * 64, 0), int(" 0o777 ", 8), int("ffffffffffffffff", 16), int("z" * 13, 36), int("1" * 19), int("9" * 19), int("-" + "9" * 19)))
show("round", lambda: (round(2**63 + 5, -1), round(-2**63 - 5, -1), round(25, -1), round(35, -1), round(2**64, -20), round(7, 2)))
show("zde", lambda: [f() if 0 else None for f in []])
for f in [lambda: 1 / 0, lambda: 1 // 0, lambda: 1 % 0, lambda: divmod(1, 0), lambda: 1.0 / 0, lambda: 1.0 // 0, lambda: 1.0 % 0, lambda: divmod(1.0, 0), lambda: 2**64 / 0, lambda: 2**64 // 0, lambda: 2**64 % 0, lambda: 0 ** -1, lambda: 0.0 ** -1, lambda: pow(2, -1, 4), lambda: pow(2, 3, 0), lambda: 1 << -1, lambda: 1 >> -1, lambda: 2**63 / 0.0]:
    show("err", f)
# bools held in variables (not rewritten by the front end) are the ints 0 and 1
x, y = True, False
show("boolvar", lambda: (x + 1, x * 3, x - 2**64, x // 1, x % 2, -x, +x, ~x, ~y, x ** 2, x << 63, x | 2**64, x & 3, x ^ True, 1 << x, x >> 1, x & y, x | y, x ^ y, 2.5 * x, x / 2, x < 2, 0.5 < x, sorted([x, 0, 2, y, 0.5])))
show("boolvarerr", lambda: [1] + x)
show("boolvarerr2", lambda: x + "a")
show("boolzde", lambda: 1 // y)
# ordered comparisons with NaN are false
n = float("nan")
show("nan", lambda: (1 < n, n < 1, 1 > n, 1 <= n, 1.0 < n, 2**70 < n, n > 1, n >= n, n <= 2**70, 1 == n, 1 != n, n == n, [n] == [n], max([1, n]), max([n, 1]), min([n, 1]), min(1, n), sorted([3, n, 1]), sorted([n, 3.0, 1.0]), [n] < [1], (n,) <= (n,)))
# bool, int and float keys of equal value are one dict key or set member;
# a dict literal's duplicate key replaces the value
a1, b1 = 1, 1
show("boolkeys", lambda: ({1: "a"}.get(True), True in {1}, 1 in [True], {True: 1}.get(1), len({1, True, 1.0}), {1: 2, True: 3, 1.0: 4}, {True: 1, 1: 2}, {0: 1, False: 2}, set([False, 0, 0.0]), [True].index(1), [1, True].count(True), 1 in (True,), {True: 1} == {1: 1}, hash(True) == hash(1)))
show("dupkeys", lambda: ({1: 2, 1: 3}, {a1: 2, b1: 3}, {"x": 1, "y": 2, "x": 3}, {2**63: 1, (2**63 - 1) + 1: 2}))
show("float big", lambda: float(2**1100))
show("float big neg", lambda: float(-2**1024))
show("float edge", lambda: (float(2**1024 - 2**970), float(-(2**1024 - 2**970)), float(2**1023)))
x, y = True, False
show("boolseq", lambda: ("ab" * x, x * "ab", [1] * y, (1, 2) * x, repr(y * "ab")))
show("float max", lambda: (float(2**1023), float(2**1024 - 2**971), float(-(2**1024 - 2**971)), float(2**1024 - 2**970 - 1)))
r = range(0, 2**63 - 1, 2**62)
show("range int64 slice", lambda: (len(r[:]), 2**62 in r[:], r[:] == r, list(r[::-1]), 0 in r[1:], len(r[5:])))
r2 = range(2**62, -2**62, -2**61)
show("range int64 neg", lambda: (len(r2), 0 in r2, -2**61 in r2, -2**62 in r2, list(r2[1:]), len(r2[::2]), 2**61 in r2[::2]))
