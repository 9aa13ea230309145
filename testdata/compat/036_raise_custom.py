def check(v):
    if v < 0:
        raise ValueError(f"negative value: {v}")
    return v
print(check(3))
check(-2)
