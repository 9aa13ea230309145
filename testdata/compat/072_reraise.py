def risky(n):
    if n > 2:
        raise RuntimeError(f"too big: {n}")
    return n
print(risky(1))
try:
    risky(5)
except RuntimeError as e:
    print("caught:", e)
    msg = str(e)
print(msg.upper())
try:
    risky(9)
except KeyError:
    print("wrong handler")
