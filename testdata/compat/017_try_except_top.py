import json
raw = '{"a": 1, "b": [1, 2'
try:
    data = json.loads(raw)
    print("parsed")
except json.JSONDecodeError as e:
    print("bad json")
    data = {}
print(data)
d = {"x": 1}
try:
    v = d["y"]
except KeyError as e:
    print("missing key", e)
    v = 0
else:
    print("no error")
finally:
    print("finally runs")
print(v)
try:
    n = int("12")
except ValueError:
    n = -1
else:
    print("converted", n)
