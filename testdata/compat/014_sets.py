words = "the cat and the hat and the bat".split()
unique = set(words)
print(len(unique))
print(sorted(unique))
vowels = {"a", "e", "i", "o", "u"}
print(sorted({c for c in "education" if c in vowels}))
a = {1, 2, 3, 4}
b = {3, 4, 5}
print(sorted(a & b), sorted(a | b), sorted(a - b), sorted(a ^ b))
print(a.issubset({1, 2, 3, 4, 5}), 3 in a, 9 not in a)
seen = set()
dups = []
for w in words:
    if w in seen:
        dups.append(w)
    seen.add(w)
print(dups)
print({1, 2} == {2, 1}, set())
print({3, 1, 2})
