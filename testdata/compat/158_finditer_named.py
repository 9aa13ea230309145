import re

log = """[2024-03-01 12:00:00] user=alice action=login ip=10.0.0.1
[2024-03-01 12:05:13] user=bob action=upload ip=10.0.0.7 size=2048
[2024-03-01 12:07:45] user=alice action=logout ip=10.0.0.1
[2024-03-02 08:15:02] user=carol action=login ip=192.168.1.20"""
pattern = re.compile(r"\[(?P<date>[\d-]+) (?P<time>[\d:]+)\] user=(?P<user>\w+) action=(?P<action>\w+)")
events = []
for m in pattern.finditer(log):
    events.append(m.groupdict())
    print(m.group("date"), m["user"], m.group("action"), m.span("user"))
print(len(events), events[1])
print([e["user"] for e in events if e["action"] == "login"])
sizes = re.findall(r"size=(\d+)", log)
print(sizes, re.search(r"ip=(\S+)$", log, re.M).group(1))
print(re.sub(r"ip=\S+", "ip=<redacted>", log.splitlines()[0]))
