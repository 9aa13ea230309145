context = "The Eiffel Tower is in Paris. The Colosseum is in Rome. Big Ben is in London."
cities = ["Paris", "Rome", "Berlin", "london"]
for c in cities:
    print(c, c in context, c.lower() in context.lower())
found = [c for c in cities if re.search(rf"\b{re.escape(c)}\b", context, re.I)]
print(found)
print(f"{len(found)}/{len(cities)} = {len(found)/len(cities):.2%}")
landmarks = dict(re.findall(r"(?:The )?([A-Z][\w ]+?) is in (\w+)", context))
print(landmarks)
print({v: k for k, v in landmarks.items()})
