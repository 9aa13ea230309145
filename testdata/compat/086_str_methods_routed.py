s = "Hello"
print(s.count("l"), s.split("l"), s.rsplit("l", 1), "a\nb\n".splitlines(), "a\nb".splitlines(True))
print("{}-{}".format(s, len(s)), "7".zfill(3), "-7".zfill(4))
print(" ".join(["a", "b"]), ",".join(map(str, [1, 2])))
xs = [3, 1, 2, 1]
print(xs.count(1))
ys = xs.copy()
ys.reverse()
print(xs, ys)
d = {"a": 1}
e = d.copy()
e["b"] = 2
print(d, e, sorted(e.keys()), list(e.values()), list(e.items()))
print("Title Case".swapcase(), "MiXeD".casefold(), "abc".isascii())
print("x".center(5, "-"), "x".ljust(3, "."), "x".rjust(3, "."))
print("3".isnumeric(), "3.5".isdecimal(), "var_1".isidentifier())
