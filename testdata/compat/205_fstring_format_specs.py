rows = [("alpha", 1234567, 0.12345), ("beta", 42, 0.5), ("gamma", 0, 1.0)]
print(f"{'name':<10}|{'count':>12}|{'share':>8}")
print("-" * 32)
for name, n, p in rows:
    print(f"{name:<10}|{n:>12,}|{p:>8.1%}")
x = 3.14159265
print(f"{x:.2f} {x:10.3f}| {x:<10.1f}| {x:^10.2f}| {x:+.2e}")
print(f"{255:x} {255:#x} {255:08b} {255:o} {1e6:g} {0.00001234:g}")
print(f"{'hi':*^9} {'left':-<8} {7:03d} {-7:05d}")
print(f"{1234.5678:,.2f} {1234567:_} {0.5:%}")
name = "world"
print(f"{name!r} {name.upper()=} {len(name) * 2 = }")
w = 12
print(f"{'dyn':>{w}}|{3.14159:.{2}f}")
