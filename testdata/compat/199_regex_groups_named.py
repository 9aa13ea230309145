log = """2024-03-01 12:00:01 ERROR [db] connection refused (code=111)
2024-03-01 12:00:05 WARN [api] slow response 2300ms
2024-03-01 12:01:17 ERROR [api] timeout after 30s (code=504)
2024-03-02 08:15:00 INFO [db] reconnected
"""
pat = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2}) (?P<time>[\d:]+) (?P<level>[A-Z]+) \[(?P<comp>\w+)\] (?P<msg>.*)$", re.M)
for m in pat.finditer(log):
    print(m.group("level"), m["comp"], m.span(), m.groupdict()["msg"][:20])
codes = re.findall(r"code=(\d+)", log)
print(codes, [int(c) for c in codes])
m = pat.search(log)
print(m.groups())
print(m.group(0) == m.group())
print(m.start("msg"), m.end("level"))
