values = ["3", "x", "5", "", "7"]
total = 0
bad = []
for v in values:
    try:
        total += int(v)
    except ValueError:
        bad.append(v)
print(total, bad)
try:
    ratio = total / len(bad)
except ZeroDivisionError:
    ratio = 0
else:
    print("ratio computed")
print(round(ratio, 3))
i = 0
while i < len(values):
    try:
        print(10 // int(values[i]))
    except (ValueError, ZeroDivisionError) as e:
        print("skip", repr(values[i]), type(e).__name__)
    finally:
        i += 1
