xs = [4, -2, 9, 0]
print(min(xs), max(xs), min(xs, key=abs), max(xs, key=lambda v: -v))
print(min([], default=None), max([], default=0))
print(max(3, 7, 5), min("b", "a", "c"), max("apple", "fig", key=len))
print(sum([0.1] * 10), sum([[1], [2]], []), sum(range(101)))
print(sum(xs) / len(xs) if xs else 0)
print(sorted(xs, key=abs), sorted(xs, reverse=True))
words = {"a": 3, "b": 7, "c": 7}
print(max(words, key=words.get), max(words.values()), min(words.items(), key=lambda kv: kv[1]))
