print(2 ** 64, 10 ** 18 + 1, -(2 ** 70))
print(12345678901234567890 * 98765432109876543210)
print(factorial := 1)
f = 1
for i in range(1, 26):
    f *= i
print(f)
print(f // 10 ** 20, f % 1000)
print(len(str(2 ** 1000)))
print(sum(int(d) for d in str(2 ** 100)))
print(7 ** -1, 2 ** 0.5, (-8) ** 2, -8 ** 2)
print(abs(-10 ** 30))
print(int("1" * 25) + 1)
print(hex(2 ** 40), bin(10))
print(round(7 / 3, 5), round(10 ** 20 / 3))
