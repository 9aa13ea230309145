pairs = [(1, "b"), (2, "a"), (1, "b"), (3, "c")]
unique = sorted(set(pairs))
print(unique)
nums, letters = zip(*unique)
print(nums, letters)
lookup = dict(zip(letters, nums))
print(lookup, lookup.get("z", -1))
inverted = {v: k for k, v in lookup.items()}
print(inverted)
a = (1, 2, 3)
print(a[1:], a + (4,), a * 2, len(a), 2 in a, a.index(3), a.count(1))
x, y, z = a
print(x + y + z, max(a), sorted(a, reverse=True))
print(tuple(sorted({3, 1, 2})), set((1, 1, 2)) == {1, 2})
