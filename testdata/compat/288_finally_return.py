log = []
def f(x):
    try:
        log.append("try")
        if x == 0:
            raise ValueError("zero")
        return 10 / x
    except ValueError as e:
        log.append(f"except {e}")
        return None
    finally:
        log.append("finally")
print(f(2), f(0), log)
def g():
    for i in range(3):
        try:
            if i == 1:
                continue
            log.append(i)
        finally:
            log.append(f"f{i}")
g()
print(log[-5:])
