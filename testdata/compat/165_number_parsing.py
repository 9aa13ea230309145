values = ["1,234", "  56 ", "7.50", "1e3", "-0.25", "3", "2.5e-2", "inf"]
for v in values:
    clean = v.strip().replace(",", "")
    num = float(clean)
    print(f"{v!r:>10} -> {num}")
print(int("1,234".replace(",", "")) + 1)
print(float("1e3"), int(float("1e3")), int("  42  "), int("-0"))
print(round(3.14159, 2), round(2.5), round(3.5), round(-1.25, 1), round(1234.5678, -2))
print(abs(-3), abs(-2.5), divmod(17, 5), 17 // 5, -17 // 5, -17 % 5, 2 ** 10, 2 ** -1)
print(10 / 4, 10 // 4, 7 / 7, 0.1 + 0.2, 1 / 3)
print(int("ff", 16), int("0b101", 0), hex(255), bin(5), oct(8))
