def analyze(text):
    def words():
        return text.split()
    def longest(ws):
        return max(ws, key=len) if ws else None
    ws = words()
    return {"count": len(ws), "longest": longest(ws), "first": ws[0] if ws else None}
print(analyze("the quick brown fox"))
print(analyze(""))
def compose(f, g):
    return lambda x: f(g(x))
inc = lambda x: x + 1
dbl = lambda x: x * 2
print(compose(inc, dbl)(5), compose(dbl, inc)(5))
def make_multiplier(n):
    def mul(x):
        return x * n
    return mul
triple = make_multiplier(3)
print([triple(i) for i in range(4)])
def outer():
    items = []
    def add(x):
        items.append(x)
    for i in range(3):
        add(i * i)
    return items
print(outer())
