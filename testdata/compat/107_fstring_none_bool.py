v = None
b = True
print(f"{v}", f"{v!s:>6}|", f"{v!r}", f"{b}", f"{b!r:<6}|", f"{b:d}")
items = [1, None, "x", 2.5, True]
print(f"{items}")
print(f"{str(items):>40}")
d = {"a": None}
print(f"{d}", f"{d['a']}")
print(f"{len(items) > 3 = }")
print(f"{'a' if b else 'b'}{'!' * 3}")
print(f"{3 * 'ab'}", f"{-7 // 2}", f"{2 ** 8}")
print(f"{10:#06x}", f"{1234.5:=+10.1f}", f"{'left':<{8}}|")
