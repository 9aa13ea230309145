items = {"apples": 3, "pears": 11}
width = 10
prec = 2
for k, v in items.items():
    print(f"{k:<{width}}|{v:>{width // 2}}|{v / 7:.{prec}f}")
name = "World"
print(f"Hello, {name.upper()}! Length: {len(name)}")
print(f"{'yes' if len(items) > 1 else 'no'}")
print(f"{[x * 2 for x in range(3)]}")
print(f"{items['apples'] + items['pears']}")
print(f"{{not a field}} {name!r:>10}")
print(f"{3.0:.1f}{'%'}")
val = 0.000123
print(f"{val:.2e} {val:g} {val * 1e6:,.1f}")
d = {"a": [1, 2]}
print(f"{d['a'][-1]} {d}")
n = 5
print(f"{n:03}", f"{n:<3}|", f"{n!s:>3}")
print(f"""multi
{name}
line""")
print(F"upper F {n}", fR"raw\t{n}")
x = 1
print(f"{x + 1 = }")
print(f"{name=!s}")
