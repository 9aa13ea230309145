import re
log = """[2024-05-01 10:00:01] GET /api/users 200 12ms
[2024-05-01 10:00:02] POST /api/login 401 5ms
[2024-05-01 10:00:03] GET /api/users/42 500 230ms
[2024-05-01 10:00:04] GET /health 200 1ms"""
pat = re.compile(r"\[(?P<ts>[^\]]+)\] (?P<method>\w+) (?P<path>\S+) (?P<status>\d{3}) (?P<ms>\d+)ms")
rows = [m.groupdict() for m in pat.finditer(log)]
print(len(rows), rows[0])
errors = [r for r in rows if int(r["status"]) >= 400]
print([f"{r['method']} {r['path']} -> {r['status']}" for r in errors])
slow = max(rows, key=lambda r: int(r["ms"]))
print(f"slowest: {slow['path']} ({slow['ms']} ms)")
by_status = {}
for r in rows:
    by_status.setdefault(r["status"][0] + "xx", []).append(r["path"])
for k in sorted(by_status):
    print(k, len(by_status[k]), by_status[k])
avg = sum(int(r["ms"]) for r in rows) / len(rows)
print(f"avg={avg:.2f}ms median={sorted(int(r['ms']) for r in rows)[len(rows)//2]}")
print(re.sub(r"\d{4}-\d{2}-\d{2} ", "", log.splitlines()[0]), re.findall(r"/api/(\w+)", log))
print(re.split(r"\s+", "a  b\tc\nd"), re.search(r"(\d+)ms$", log, re.M).group(1), bool(re.match("GET", "GET /")))
words = re.findall(r"[A-Za-z]+", log.lower())
print(sorted(set(words))[:5], len(words))
summary = {"total": len(rows), "errors": len(errors), "error_rate": round(len(errors) / len(rows), 3)}
print(summary, str(summary).replace("'", '"'))
lines = log.split("\n")
for i, line in enumerate(lines[:2], 1):
    print(f"{i:>3}: {line[:30]}...")
print("\n".join(l for l in lines if " 200 " in l))
