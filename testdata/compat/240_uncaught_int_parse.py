values = ["12", " 7 ", "3.5"]
total = 0
for v in values:
    total += int(v)
    print(total)
