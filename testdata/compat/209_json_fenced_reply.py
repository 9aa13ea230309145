reply = '''Sure! Here is the extracted data:
```json
{"people": [{"name": "Ann", "age": 31}, {"name": "Bo", "age": 27}], "count": 2}
```
Let me know if you need anything else.'''
m = re.search(r"```(?:json)?\s*(.*?)\s*```", reply, re.DOTALL)
payload = m.group(1) if m else reply
try:
    obj = json.loads(payload)
except json.JSONDecodeError as e:
    print("bad json:", e)
    obj = None
print(obj["count"], [p["name"] for p in obj["people"]])
bad = '{"a": 1, "b": [1, 2,]}'
try:
    json.loads(bad)
except json.JSONDecodeError as e:
    print("error:", e)
    print(e.msg, e.pos, e.lineno, e.colno)
try:
    json.loads("not json at all")
except ValueError as e:
    print(type(e).__name__, e)
