values = ["a'b", 'a"b', "a\\b", "tab\t", "nl\n", "uni é", "", " ", 0, -1, 1.0, [], {}, (), None, True, [["x"]], {"k": ("v",)}]
for v in values:
    print(repr(v), str(v) if not isinstance(v, str) else v.strip() or "<blank>")
print(values[:5])
print(repr(repr("x")))
print(str(["a", 1]), repr(["a", 1]))
print(eval_like := "done")
