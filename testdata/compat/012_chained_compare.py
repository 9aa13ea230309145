def classify(x):
    if x < 0:
        return "negative"
    elif 0 <= x < 10:
        return "small"
    elif 10 <= x <= 100:
        return "medium"
    return "large"
for v in [-5, 0, 9, 10, 100, 101]:
    print(v, classify(v))
a, b, c = 1, 2, 3
print(a < b < c, a < b > c, a < b == 2, 1 < 2 < 3 < 4 < 5)
calls = []
def f(v):
    calls.append(v)
    return v
print(f(5) < f(3) < f(10))
print(calls)
