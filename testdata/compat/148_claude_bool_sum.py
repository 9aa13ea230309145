scores = [0.91, -0.2, 0.45, 0.0, 1.7, -3.1, 0.05]

positive = sum(x > 0 for x in scores)
negative = sum(1 for x in scores if x < 0)
print(f"positive={positive}, negative={negative}, zero={len(scores) - positive - negative}")
print(True + True, True * 3, False - 1, sum([True, True, False]))

matches = 0
pairs = [("a", "a"), ("b", "c"), ("d", "d"), ("e", "E")]
for a, b in pairs:
    matches += (a == b)
print("matches:", matches)
print("share: %.2f" % (matches / len(pairs)))
flags = [s.startswith("0") for s in ["01", "10", "00"]]
print(flags, sum(flags), int(True), float(False))
print(max(True, 0), abs(-True), -True, ~False)
