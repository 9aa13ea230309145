parts = "key=value".split("=")
print(parts[0], parts[1])
other = "novalue".split("=")
print(other[1])
