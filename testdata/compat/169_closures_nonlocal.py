def make_counter(start=0):
    count = start
    def inc(step=1):
        nonlocal count
        count += step
        return count
    return inc

c = make_counter(10)
print(c(), c(), c(5))

def make_multiplier(k):
    return lambda x: x * k

double, triple = make_multiplier(2), make_multiplier(3)
print(double(7), triple(7), [f(1) for f in (double, triple)])
