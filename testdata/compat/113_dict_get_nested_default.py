config = {"db": {"host": "localhost", "port": 5432}, "debug": False}
print(config.get("db", {}).get("port"))
print(config.get("cache", {}).get("ttl", 60))
print(config["db"].get("user") or "postgres")
def deep_get(d, path, default=None):
    cur = d
    for key in path.split("."):
        if not isinstance(cur, dict) or key not in cur:
            return default
        cur = cur[key]
    return cur
print(deep_get(config, "db.host"), deep_get(config, "db.x.y", "n/a"), deep_get(config, "debug"))
flat = {}
def flatten(d, prefix=""):
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            flatten(v, key + ".")
        else:
            flat[key] = v
flatten(config)
print(flat)
