import re
from collections import Counter
context = """[2024-05-01 12:00:01] GET /index.html 200 1.2ms ip=10.0.0.1
[2024-05-01 12:00:02] GET /api/data 500 30.5ms ip=10.0.0.2
[2024-05-01 12:00:03] POST /api/data 201 12.0ms ip=10.0.0.1
[2024-05-01 12:00:04] GET /missing 404 0.8ms ip=10.0.0.3
[2024-05-01 12:00:05] GET /api/data 200 8.4ms ip=10.0.0.2"""
pattern = re.compile(r"\] (\w+) (\S+) (\d{3}) ([\d.]+)ms ip=([\d.]+)")
rows = [m.groups() for m in pattern.finditer(context)]
print(len(rows), rows[0])
status = Counter(r[2] for r in rows)
print(sorted(status.items()))
errors = [r for r in rows if int(r[2]) >= 400]
print(f"{len(errors)} errors ({len(errors) / len(rows):.0%})")
latency = [float(r[3]) for r in rows]
print(f"avg {sum(latency) / len(latency):.2f}ms max {max(latency)}ms")
by_ip = Counter(r[4] for r in rows)
for ip, n in by_ip.most_common():
    print(f"  {ip:<10} {n}")
paths = sorted({r[1] for r in rows})
print(paths)
