def chunks(seq, n):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]
def numbered(lines):
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        yield f"{i:>3}: {line}"
text = "alpha\n\nbeta\ngamma\n\ndelta"
for row in numbered(text.splitlines()):
    print(row)
print([len(c) for c in chunks(list(range(10)), 4)])
print(sum(x for c in chunks([1, 2, 3, 4, 5], 2) for x in c))
def walk(d, prefix=""):
    for k, v in d.items():
        if isinstance(v, dict):
            yield from walk(v, prefix + k + "/")
        else:
            yield prefix + k, v
print(list(walk({"a": 1, "b": {"c": 2, "d": {"e": 3}}})))
print(dict(walk({"x": {"y": 0}})))
