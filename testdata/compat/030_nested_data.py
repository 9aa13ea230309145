data = {
    "users": [
        {"name": "ann", "roles": ["admin", "dev"], "meta": {"age": 34, "city": "Oslo"}},
        {"name": "ben", "roles": ["dev"], "meta": {"age": 28, "city": "Rome"}},
        {"name": "cat", "roles": [], "meta": {"age": 45, "city": "Oslo"}},
    ],
    "version": 2,
}
print(list(data.keys()))
users = data["users"]
print(len(users), users[0]["meta"]["city"])
admins = [u["name"] for u in users if "admin" in u["roles"]]
print(admins)
cities = {}
for u in users:
    cities[u["meta"]["city"]] = cities.get(u["meta"]["city"], 0) + 1
print(cities)
oldest = max(users, key=lambda u: u["meta"]["age"])
print(oldest["name"], oldest["meta"])
print(sum(len(u["roles"]) for u in users))
print([(u["name"], u["meta"].get("zip", "n/a")) for u in users])
def walk(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            walk(v, f"{path}.{k}" if path else k)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            walk(v, f"{path}[{i}]")
    else:
        print(path, "=", repr(obj))
walk(data["users"][1])
