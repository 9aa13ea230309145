import re
lines = ["id: 12", "nothing here", "id: 7", "id: x"]
for line in lines:
    if (m := re.search(r"id: (\d+)", line)):
        print("got", m.group(1))
ids = [int(m.group(1)) for l in lines if (m := re.match(r"id: (\d+)", l))]
print(ids)
data = [5, 3, 0, 8]
i = 0
while (v := data[i]) != 0:
    print("value", v)
    i += 1
if (n := len(lines)) > 3:
    print(f"{n} lines")
