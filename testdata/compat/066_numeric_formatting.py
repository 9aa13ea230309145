values = [0, 1, -1, 3.14159, 2.5, -0.5, 1234.5678, 1e6, 1.5e-4, 100]
for v in values:
    print(f"{v!r:>12} {v:>10.2f} {v:>12,.1f} {v:8.3g} {str(v):>10}")
print(f"{0.125:.2%}", f"{1/3:.5f}", f"{2/3:.0f}", f"{0.5:.0f}", f"{1.5:.0f}")
print(round(0.125, 2), round(0.375, 2), round(-2.5), round(1.05, 1))
print(f"{12:>+6}", f"{-12:=6}", f"{12:^7}|")
print(f"{3:b}", f"{10:o}", f"{255:08b}")
print(format(1234.5, ",.2f"), format(0.5, "%"), format(42, "x"), format("s", ">3"))
print(str(1.0), str(10.0 ** 16), str(1 / 3), 3.0 * 1.1)
print(int(2.9), int(-2.9), float(7), 7 / 7)
