import json
obj = {"name": "Zoë", "tags": ["a", "b"], "n": 1.0, "ok": None}
print(json.dumps(obj))
print(json.dumps(obj, ensure_ascii=False))
print(json.dumps(obj, separators=(",", ":")))
print(json.dumps(obj, indent=1, sort_keys=True))
print(json.dumps([]), json.dumps({}), json.dumps(""), json.dumps(3), json.dumps(True))
s = json.dumps({"nested": {"list": [1, [2, [3]]]}})
print(s, json.loads(s)["nested"]["list"][1][1])
print(json.loads("3.5"), json.loads("null"), json.loads('"x"'), json.loads("[true, false]"))
print(type(json.loads("1")).__name__, type(json.loads("1.0")).__name__)
