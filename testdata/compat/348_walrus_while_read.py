lines = iter(["header", "a=1", "b=2", "", "c=3"])
next(lines)
config = {}
while (line := next(lines, None)) is not None:
    if not line:
        continue
    k, v = line.split("=")
    config[k] = int(v)
print(config)
data = [5, 12, 7, 30, 2]
if (big := [x for x in data if x > 10]):
    print("big values:", big, len(big))
print([m.group(1) for s in ["id:1", "x", "id:22"] if (m := re.match(r"id:(\d+)", s))])
