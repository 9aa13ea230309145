raw = """
    first line
      indented more
    last line
"""
lines = raw.strip("\n").split("\n")
indent = min(len(l) - len(l.lstrip()) for l in lines if l.strip())
print([l[indent:] for l in lines])
print(repr(raw.strip()), repr(raw.lstrip("\n ")[:5]))
print("xxhixx".strip("x"), "--a-b--".rstrip("-"), "  pad".lstrip())
block = "\n".join("> " + l for l in "one\ntwo".splitlines())
print(block)
print("a,b;c".replace(";", ",").split(","))
print("%s|%s" % ("left".ljust(6), "right".rjust(6)))
