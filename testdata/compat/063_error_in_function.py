def parse_record(line):
    parts = line.split(":")
    return {"key": parts[0], "value": int(parts[1])}
print(parse_record("a:1"))
rows = ["b:2", "c:x"]
for r in rows:
    print(parse_record(r))
