data = [3, 7, 3, 1, 7, 7, 9, 1, 3, 7]
freq = {}
for x in data:
    freq[x] = freq.get(x, 0) + 1
for k in sorted(freq):
    bar = "*" * freq[k]
    print(f"{k:>2} | {bar:<5} | {freq[k] / len(data):6.1%}")
mode = max(freq, key=freq.get)
print("mode", mode)
mean = sum(data) / len(data)
var = sum((x - mean) ** 2 for x in data) / len(data)
print(f"mean={mean} var={var:.4f} std={var ** 0.5:.4f}")
s = sorted(data)
n = len(s)
median = (s[n // 2 - 1] + s[n // 2]) / 2 if n % 2 == 0 else s[n // 2]
print("median", median)
