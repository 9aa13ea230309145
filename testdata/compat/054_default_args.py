def greet(name, greeting="Hello", punct="!"):
    return f"{greeting}, {name}{punct}"
print(greet("Ann"))
print(greet("Bob", "Hi"))
print(greet("Cy", punct="?"))
print(greet(greeting="Yo", name="Di"))
def window(seq, size=2, step=1):
    return [seq[i:i + size] for i in range(0, len(seq) - size + 1, step)]
print(window([1, 2, 3, 4, 5]))
print(window("abcdef", size=3, step=2))
def describe(x, *, verbose=False):
    if verbose:
        return f"value {x!r} of type {type(x).__name__}"
    return str(x)
print(describe(3), describe("s", verbose=True))
def f(a, b=None):
    if b is None:
        b = []
    b.append(a)
    return b
print(f(1), f(2), f(3, [0]))
