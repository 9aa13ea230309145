limit = 10
def within(v):
    return v < limit
print(within(5))
try:
    limit = int("3")
except ValueError:
    print("bad limit")
print(within(5), limit)
try:
    import json
    config = json.loads('{"limit": 7}')
    limit = config["limit"]
except (ImportError, KeyError):
    pass
print([v for v in range(10) if within(v)])
