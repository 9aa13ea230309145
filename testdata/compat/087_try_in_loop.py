import json
lines = ['{"a": 1}', 'not json', '{"a": 3}', '{"b": 4}']
parsed, errors = [], 0
for line in lines:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        errors += 1
        continue
    parsed.append(obj)
print(parsed, errors)
total = 0
for obj in parsed:
    try:
        total += obj["a"]
    except KeyError as e:
        print("no key", e)
print(total)
