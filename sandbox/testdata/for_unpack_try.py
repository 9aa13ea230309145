def f(rows):
    seen = []
    try:
        for a, b in rows:
            seen.append(a)
            if a == "stop":
                break
    except ValueError as e:
        return "ValueError: %s; seen %s" % (e, seen)
    except TypeError as e:
        return "TypeError: %s; seen %s" % (e, seen)
    else:
        return "ok %s" % seen
    finally:
        seen.append("finally")
print(f([(1, 2), (3, 4), (5, 6, 7), (8, 9)]))
print(f([(1, 2), (3,)]))
print(f([(1, 2), 5]))
print(f(5))
print(f(["ab", "cd", "e"]))
print(f({"k": 1}.items()))
print(f([("stop", 1), (1, 2, 3)]))
print(f(iter([[1, 2], [3, 4]])))
def g(d):
    out = []
    for i in range(2):
        try:
            for k, (x, y) in d.items():
                out.append((i, k, x + y))
        except ValueError as e:
            out.append(str(e))
    return out
print(g({"a": (1, 2), "b": (3, 4)}), g({"a": (1, 2, 3)}))
def h():
    try:
        y = z + 1
        z = 1
    except NameError as e:
        return "caught " + type(e).__name__
    return y
def k(xs):
    total = 0
    try:
        for x in xs:
            total += 10 // x
    except ZeroDivisionError:
        return "zero after " + str(total)
    return total
print(h(), k([1, 2, 5]), k([1, 0, 5]))
