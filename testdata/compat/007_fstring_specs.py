n = 1234567
p = 0.4567
s = "abc"
x = 3.14159
print(f"{n:,}")
print(f"{n:_}")
print(f"{p:.1%}")
print(f"{p:.2f}")
print(f"[{s:>8}]")
print(f"[{s:<8}]")
print(f"[{s:^9}]")
print(f"[{s:*^9}]")
print(f"{x:.3}")
print(f"{x:10.4f}|")
print(f"{n:>12,}|")
print(f"{42:05d}")
print(f"{255:x} {255:X} {255:o} {255:b} {255:#x}")
print(f"{-5:+d} {5:+d}")
print(f"{x=}")
print(f"{s!r}")
print(f"{n = :,}")
print(f"{1e-7:.2e}")
print(f"{123.456:g}")
