def safe_div(a, b):
    try:
        return a / b
    except ZeroDivisionError as e:
        print(f"error: {e}")
        return None
    finally:
        print(f"tried {a}/{b}")

print(safe_div(6, 3))
print(safe_div(1, 0))

d = {"a": 1}
try:
    print(d["b"])
except KeyError as e:
    print("missing key:", e, repr(e))

try:
    int("twelve")
except (TypeError, ValueError) as e:
    print(type(e).__name__, "-", str(e))

try:
    [1, 2][5]
except IndexError as err:
    print("IndexError:", err)
else:
    print("no error")

try:
    raise ValueError("custom message")
except Exception as e:
    print(f"caught {e.__class__.__name__}: {e}")
