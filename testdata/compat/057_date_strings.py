events = ["2024-03-15 meeting", "2023-12-01 launch", "2024-01-20 review", "2024-03-02 demo"]
parsed = []
for e in events:
    date, name = e.split(" ", 1)
    y, m, d = map(int, date.split("-"))
    parsed.append((y, m, d, name))
parsed.sort()
for y, m, d, name in parsed:
    print(f"{y:04d}/{m:02d}/{d:02d} {name}")
by_month = {}
for y, m, d, name in parsed:
    by_month.setdefault(f"{y}-{m:02d}", []).append(name)
print(by_month)
print(max(parsed)[3], min(parsed)[3])
print(sorted(events, key=lambda e: e.split()[0], reverse=True)[0])
