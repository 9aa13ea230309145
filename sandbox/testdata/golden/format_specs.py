# format(), f-strings, str.format and printf-style % against CPython:
# values x specs (fill, align, sign, z, #, 0, width, grouping, precision,
# type), conversions, self-documenting and nested fields.
vals = [0, 1, -1, 7, -42, 12345678901234567890, -2**70, 2**63 - 1, -2**63, 2**63,
        1.5, -0.0, 0.0, 1e-4, 9.99e-5, 1e16, 9999999999999998.0, 1e15 + 0.3, 123.456,
        -2.5, 0.1 + 0.2, 1e300, 5e-324, 1e22, float('inf'), float('-inf'), float('nan'),
        True, False, "abc", "héllo", ""]
specs = ["", ">8", "<8", "^9", "*^9", "08", "+", " ", ".2f", "10.3f", "+.1f", "-08.2f",
         "#.0f", ".0f", "x<05", "<05", "^07", "0=5", "e", ".3e", "#.0e", "g", ".3g", "#g",
         "#.1g", "%", ".1%", ",", "_", "012,.1f", "09,", "020,", ",.2f", "_x", "#_x", "_b",
         "#010x", "d", "s", ".2s", ">3", "=+8", "010", "f", "F", ".3", "#.3", ".5", ".17",
         "5", "é>6", "z.1f", "z", "c", "n", "X", "#o", "abc", ".", ",x", ",s", " 5"]
for v in vals:
    for sp in specs:
        try:
            r = format(v, sp)
            s = f"{v:{sp}}"
            assert r == s, (r, s)
            assert "{:{}}".format(v, sp) == r
            print(repr(v), repr(sp), repr(r))
        except Exception as e:
            print(repr(v), repr(sp), type(e).__name__, e)
    print(f"[{v!r:>12}|{v!s:<6}|{v=}|{v}|{v!a}|{v = !s:^9}]")
x, w, p = 3.14159, 10, 3
print(f"{x:{w}.{p}f}|{x:>{w}}|{'s':{'^'}{w}}|{x:{'+'}{w}.{p}e}")
print(f"{'a'}{1}{2.0}{{}}{'x'!r}" "lit" f"{None}{[1, 'b']}{ {'k': (1,)} }")
print(f"""multi
{1 + 1}
line {x:.1f}""")
items = [("apple", 3, 0.5), ("kiwi", 12, 1.25), ("fig", -7, 10.0)]
for name, n, price in items:
    print(f"{name:<8}|{n:>4}|{n:+05d}|{price:8.2f}|{price:.1%}|{n * price:,.3f}")
    print("%-8s|%4d|%+05d|%8.2f|%x|%o|%e|%g|%r|%c" % (name, n, n, price, abs(n), abs(n), price, price, name, 65 + abs(n)))
    print("{0:<8}|{1:>4}|{2:8.2f}|{0!r}|{n}".format(name, n, price, n=n))
print("%s=%d (%.1f%%)" % ("k" + str(5), 5, 5 / 3))
print("%5s|%-5s|%05d|%.3d|%-6.2f|%+d|% d|%5c|%(a)s" % ("a", "b", -42, 7, 2.5, 3, 4, "z", {"a": 1}) if False else "%5s|%-5s|%05d|%.3d|%-6.2f|%+d|% d|%5c" % ("a", "b", -42, 7, 2.5, 3, 4, "z"))
print("%(name)s is %(age)d" % {"name": "ann", "age": 30})
print("%s %s" % (True, None), "%d %i %u" % (True, -3.7, 9))
for bad in ["%d" % 1 if False else None]:
    pass
for fmt_, args in [("%d", ("x",)), ("%s %s", ("a",)), ("%s", ("a", "b")), ("%z", (1,))]:
    try:
        print(fmt_ % args)
    except Exception as e:
        print(type(e).__name__, e)
for a in [2**70, -1, 0x110000, 65, 'ab', 1.5, 'é']:
    try:
        print(repr('%c|%+c|%-3c|%3c' % (a, a, a, a)))
    except Exception as e:
        print(type(e).__name__, e)
print(repr('%05.3d' % -5), repr('%#.0e' % 1), repr('%#.0f' % 1), repr('%#x' % 255), repr('%#g' % 1.0), repr('%.0e' % 12345), repr('%-+7.2f|' % 3.14159))
print(repr('%s|%5s|%.2s|%r|%a' % ('héllo', 'é', 'héllo', 'é', 'é')), '%é' if False else '')
try:
    print('%é' % 1)
except Exception as e:
    print(type(e).__name__, e)
d = {"a": [10, 20], "b": {"c": 1.5}}
print("{0[a][1]}|{0[b]}|{x!r:>6}|{x!s}|{x!a}|{y:{w}.{p}f}|{{lit}}".format(d, x="é", y=3.14159, w=9, p=2))
print("{}|{:>8}|{:08.3f}|{!r}|{:,}|{:x}".format(1, "ab", -2.5, [1], 10**7, 255))
for f_, a_, k_ in [("{} {}", (1,), {}), ("{0} {}", (1, 2), {}), ("{k}", (), {}), ("{!z}", (1,), {}), ("{:d}", ("s",), {}), ("}", (), {}), ("{", (), {})]:
    try:
        print(f_.format(*a_, **k_))
    except Exception as e:
        print(type(e).__name__, e)
print("%s|%s|%s|%5s|%-5s|%.1s|%d|%5d|%-5d|%05d|%+d|%f|%.2f|%8.3f|%-8.1f|%+.0f" % ("x", 7, 2.5, 7, 2.5, "yz", -7, 42, 42, -42, 0, 1/3, 2.675, -1.5, 0.05, 0.5))
print("%s %d %f" % (True, True, True), "%s" % (1e16,), "%s" % (1e-5,), "%d" % 2**70)
# enumerate pairs and tuple unpacking
pairs = list(enumerate("abc", 5))
kept = [t for t in enumerate(range(100)) if t[0] % 37 == 0]
print(pairs, kept, [a * b for a, b in enumerate([3, 4, 5])])
for i, (a, b) in enumerate([(1, 2), (3, 4)]):
    print(i, a, b)
ix = [(i, c) for i, c in enumerate("héllo") if c != "l"]
acc = 0
for i, x in enumerate(range(10, 15), start=-2):
    acc += i * x
print(ix, acc, [(k, v) for k, v in enumerate([])], list(enumerate("ab", 2**40)))
