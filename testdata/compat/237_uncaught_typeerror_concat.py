lines = ["a", "b", "c"]
n = len(lines)
print("processed " + str(n) + " lines")
print("total lines: " + n)
