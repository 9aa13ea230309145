rows = [("alpha", 3, 0.125), ("beta", 12, 0.5), ("gamma-long-name", 150, 0.375)]
print("%-10s %5s %8s" % ("name", "n", "share"))
print("-" * 25)
for name, n, share in rows:
    print("%-10s %5d %7.1f%%" % (name[:10], n, share * 100))
print("%s has %d items (%.3f)" % ("total", sum(r[1] for r in rows), 1.0))
print("%05d|%+d|%x|%o|%e" % (42, 7, 255, 8, 12345.678))
print("%(name)s is %(age)d" % {"name": "zoe", "age": 31})
print("%r %s" % ("q", "q"), "%%done %c" % 65)
