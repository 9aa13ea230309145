def lookup(d, key):
    try:
        return d[key]
    except KeyError:
        raise ValueError(f"unknown key {key!r}")
print(lookup({"x": 1}, "x"))
try:
    lookup({}, "y")
except ValueError as e:
    print("outer caught:", e)
def first_int(items):
    for it in items:
        try:
            return int(it)
        except ValueError:
            pass
    return None
print(first_int(["a", "b", "42", "7"]), first_int([]))
