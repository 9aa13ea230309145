def make_counter():
    count = 0
    def inc(step=1):
        nonlocal count
        count += step
        return count
    return inc

c = make_counter()
print(c(), c(), c(5))
def make_filter(keyword, case=False):
    def f(line):
        return (keyword in line) if case else (keyword.lower() in line.lower())
    return f
lines = ["Error: disk", "warning", "ERROR again"]
flt = make_filter("error")
print([l for l in lines if flt(l)])
adders = [lambda x, i=i: x + i for i in range(3)]
print([a(10) for a in adders])
late = [lambda x: x + i for i in range(3)]
print([a(10) for a in late])
def outer():
    items = []
    def add(x):
        items.append(x)
        return len(items)
    add(1); add(2)
    return items
print(outer())
