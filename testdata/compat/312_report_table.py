rows = [("North", 1523400.5, 0.123), ("South", 987654.25, -0.045), ("East", 45000, 0.5), ("West", 0, 0)]
header = f"{'Region':<8}|{'Revenue':>15}|{'Growth':>9}"
print(header)
print("-" * len(header))
for region, rev, g in rows:
    print(f"{region:<8}|{rev:>15,.2f}|{g:>+9.1%}")
total = sum(r[1] for r in rows)
print("=" * len(header))
print(f"{'Total':<8}|{total:>15,.2f}|{'':>9}")
print(f"{total:e} {total:.3g} {int(total):_} {0.000123:.2e} {12:08.3f} {255:#x} {255:08b}")
print("{:^20}".format("centered"), "[{:*^9}]".format("mid"), "{0}-{1}-{0}".format("a", "b"))
