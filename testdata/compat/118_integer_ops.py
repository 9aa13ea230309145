for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2)]:
    print(a, b, a // b, a % b, divmod(a, b), a / b)
print(pow(3, 4, 5), pow(2, 100, 1000), abs(-0), -(-3))
print(17 & 5, 17 | 5, 17 ^ 5, ~5, 1 << 10, 1024 >> 3)
print(int("ff", 16), int("0b101", 0), int("777", 8), int(" -42 "))
print(round(2.5), round(-0.5), round(1.5), round(12345, -2), round(0.1 + 0.7, 1))
print(int(7.9), int(-7.9), 7 // 1.5, 7 % 1.5)
print(max(-1, -2, key=abs), sum([1, 2, 3], 10))
n = 1234
digits = []
while n:
    n, d = divmod(n, 10)
    digits.append(d)
print(digits[::-1])
