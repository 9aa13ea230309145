names = ["ann", "bob", "cy"]
ages = [31, 25, 40]
for i, name in enumerate(names, 1):
    print(i, name)
for name, age in zip(names, ages):
    print(f"{name} is {age}")
print(list(zip(names, ages, "xyz")))
print(dict(enumerate(names)))
print(list(zip(*[(1, "a"), (2, "b")])))
pairs = sorted(zip(ages, names))
print(pairs)
oldest_age, oldest = max(zip(ages, names))
print(oldest, oldest_age)
for i, (n, a) in enumerate(zip(names, ages)):
    if i % 2 == 0:
        print(i, n, a)
print(list(enumerate("ab")))
