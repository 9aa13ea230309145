from collections import Counter, defaultdict
log = """[2024-06-01 10:00:01] ERROR db: connection refused (host=db1)
[2024-06-01 10:00:05] WARN  api: slow response 2300ms
[2024-06-01 10:01:00] ERROR db: connection refused (host=db2)
[2024-06-01 10:02:13] INFO  api: request ok 120ms
[2024-06-01 11:15:42] ERROR api: timeout after 30000ms
[2024-06-01 11:16:00] INFO  db: reconnected (host=db1)"""
pat = re.compile(r"\[(?P<ts>[^\]]+)\]\s+(?P<lvl>[A-Z]+)\s+(?P<svc>\w+):\s+(?P<msg>.*)")
levels = Counter()
by_hour = defaultdict(Counter)
durations = []
for line in log.splitlines():
    m = pat.match(line)
    if not m:
        continue
    levels[m["lvl"]] += 1
    by_hour[m["ts"][11:13]][m["svc"]] += 1
    if (d := re.search(r"(\d+)ms", m["msg"])):
        durations.append(int(d.group(1)))
print(levels.most_common())
print({h: dict(c) for h, c in sorted(by_hour.items())})
print(durations, max(durations), sorted(durations)[len(durations) // 2])
hosts = re.findall(r"host=(\w+)", log)
print(Counter(hosts))
