def to_int(s, default=0):
    try:
        return int(s)
    except (ValueError, TypeError):
        return default
print([to_int(x) for x in ["1", "two", None, "4"]])
def safe_div(a, b):
    try:
        result = a / b
    except ZeroDivisionError:
        print("cannot divide", a, "by zero")
        result = None
    else:
        print("ok", result)
    finally:
        print("done", a, b)
    return result
print(safe_div(6, 3))
print(safe_div(1, 0))
