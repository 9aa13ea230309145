people = [
    {"name": "Zoe", "age": 31, "city": "Paris"},
    {"name": "adam", "age": 25, "city": "berlin"},
    {"name": "Bob", "age": 31, "city": "Amsterdam"},
    {"name": "carl", "age": 19, "city": "Paris"},
    {"name": "Dana", "age": 25, "city": None},
]
print([p["name"] for p in sorted(people, key=lambda p: p["name"])])
print([p["name"] for p in sorted(people, key=lambda p: p["name"].lower())])
print([p["name"] for p in sorted(people, key=lambda p: (-p["age"], p["name"].lower()))])
print([p["name"] for p in sorted(people, key=lambda p: (p["city"] is None, (p["city"] or "").lower()))])
from operator import itemgetter
print([(p["age"], p["name"]) for p in sorted(people, key=itemgetter("age", "name"), reverse=True)])
people.sort(key=lambda p: len(p["name"]))
print([p["name"] for p in people])
print(sorted(["10", "9", "100", "1"]), sorted(["10", "9", "100", "1"], key=int))
