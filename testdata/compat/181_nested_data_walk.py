from collections import Counter
records = [
    {"id": 1, "user": {"name": "ann", "roles": ["admin", "dev"]}, "events": [{"type": "login", "ok": True}]},
    {"id": 2, "user": {"name": "bo", "roles": []}, "events": [{"type": "login", "ok": False}, {"type": "login", "ok": True}]},
    {"id": 3, "user": {"name": "cy", "roles": ["dev"]}, "events": []},
]
admins = [r["user"]["name"] for r in records if "admin" in r["user"]["roles"]]
print(admins)
failed = sum(1 for r in records for e in r["events"] if not e["ok"])
print("failed logins:", failed)
role_count = Counter(role for r in records for role in r["user"]["roles"])
print(role_count)
no_events = [r["id"] for r in records if not r["events"]]
print(no_events)
print(records[1].get("missing", "n/a"), records[1]["user"].get("email"))
for r in records:
    ev = r["events"]
    status = "none" if not ev else ("all ok" if all(e["ok"] for e in ev) else "some failed")
    print(f"#{r['id']} {r['user']['name']:<3} {status}")
