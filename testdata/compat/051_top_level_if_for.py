threshold = 50
values = [12, 75, 50, 99, 3]
if len(values) > 3:
    print("many values")
else:
    print("few values")
above = []
for v in values:
    if v > threshold:
        above.append(v)
    elif v == threshold:
        print("exactly at threshold")
    else:
        continue
print(above)
for i in range(3):
    for j in range(3):
        if j > i:
            break
        print(i, j, end="; ")
print()
i = 0
for i in range(10):
    pass
print("last i", i)
