rows = [("b", 2), ("a", 2), ("c", 1), ("d", 3), ("e", 1)]
print(sorted(rows, key=lambda r: r[1]))
print(sorted(rows, key=lambda r: r[1], reverse=True))
by_name = sorted(rows)
print(sorted(by_name, key=lambda r: -r[1]))
print(sorted([3, 1, 2], reverse=True), sorted(["b", "A", "c"]), sorted(["b", "A", "c"], key=str.lower))
print(sorted([(1, "b"), (1, "a"), (0, "z")]))
print(sorted({"x": 3, "y": 1}.items(), key=lambda kv: kv[1]))
print(sorted([-3, 2, -1], key=abs), sorted([0.5, -1.5, 1.0]))
words = ["aa", "b", "cc", "d"]
words.sort(key=len)
print(words)
