lines = ["id=1 name=a", "junk", "id=22 name=bb", "id=x", "id=333 name=ccc"]
found = []
for line in lines:
    if (m := re.match(r"id=(\d+) name=(\w+)", line)):
        found.append((int(m.group(1)), m.group(2)))
print(found)
ids = [n for line in lines if (n := len(line)) > 5]
print(ids)
label = "big" if len(found) > 2 else "small"
print(label)
x = 0
result = x or "default"
print(result, 0 and 1, None or [] or "last", 1 and 2)
print("pos" if x > 0 else "zero" if x == 0 else "neg")
