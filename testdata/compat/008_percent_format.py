name = "report"
count = 7
ratio = 2 / 3
print("%s has %d items" % (name, count))
print("%5.2f|" % ratio)
print("%-8s|" % name)
print("%8s|" % name)
print("%05d" % count)
print("%.3f%%" % (ratio * 100))
print("%x %o %e" % (255, 8, 12345.678))
print("%(a)s and %(b)d" % {"a": "x", "b": 3})
print("%r" % "quoted")
print("%s" % [1, 2])
print("%s" % (1.5,))
print("%+d %i" % (4, 5))
msg = "total: %d"
msg %= 10
print(msg)
