log = """2024-01-15 08:23:11 [INFO] user=alice action=login ip=10.0.0.1
2024-01-15 08:24:02 [WARN] user=bob action=failed_login ip=10.0.0.7
2024-01-15 09:01:45 [ERROR] user=alice action=upload size=15MB
2024-01-16 10:12:00 [INFO] user=carol action=login ip=10.0.0.9
malformed line here
2024-01-16 11:00:00 [ERROR] user=bob action=upload size=2MB"""
pat = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2}) (?P<time>[\d:]+) \[(?P<level>\w+)\] (?P<rest>.*)$", re.M)
entries = []
for m in pat.finditer(log):
    d = m.groupdict()
    d["fields"] = dict(kv.split("=", 1) for kv in d.pop("rest").split())
    entries.append(d)
print(len(entries))
print(entries[2])
errors = [e for e in entries if e["level"] == "ERROR"]
print([(e["date"], e["fields"]["user"], e["fields"].get("size")) for e in errors])
print(pat.search(log).group("level", "date"), pat.search(log).span())
