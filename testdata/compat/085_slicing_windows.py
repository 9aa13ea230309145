s = "abcdefghij"
print(s[2:], s[:3], s[-3:], s[::3], s[1:-1:2], s[100:], s[-100:2])
xs = list(range(10))
print(xs[::-2], xs[5:2:-1], xs[:-7])
size, overlap = 4, 1
windows = [s[i:i + size] for i in range(0, len(s), size - overlap)]
print(windows)
print([w for w in windows if len(w) == size])
text = "word " * 7
print(repr(text[:12]), len(text.split()))
print(s[len(s) // 2:], s[: len(s) // 2])
pairs = list(zip(xs, xs[1:]))
print(pairs[:3])
