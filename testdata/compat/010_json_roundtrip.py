import json
data = {"name": "test", "items": [1, 2, 3], "nested": {"ok": True, "none": None}, "pi": 3.5}
s = json.dumps(data)
print(s)
back = json.loads(s)
print(back == data)
print(back["nested"])
print(json.dumps(data, indent=2))
print(json.dumps([1, "a", None, False]))
print(json.dumps({"b": 1, "a": 2}, sort_keys=True))
raw = '[{"id": 1, "tags": ["x", "y"]}, {"id": 2, "tags": []}]'
rows = json.loads(raw)
print([r["id"] for r in rows if r["tags"]])
print(json.dumps("unicode é"))
