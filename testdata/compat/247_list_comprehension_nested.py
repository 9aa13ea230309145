matrix = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
print([row[i] for row in matrix for i in range(len(row)) if i == 1])
print([[r[i] for r in matrix] for i in range(3)])
print(list(map(list, zip(*matrix))))
flat = [x for row in matrix for x in row if x % 2]
print(flat)
print({x % 3 for x in flat}, {x: x ** 2 for x in flat[:3]})
words = "the cat sat on the mat".split()
print([w.upper() if len(w) > 2 else w for w in words])
print(sum(len(w) for w in words) / len(words))
print(any(w.startswith("m") for w in words), all(len(w) >= 2 for w in words))
print(list(filter(None, [0, 1, "", "a", None, [], [0]])))
print(sorted(set(words), key=words.index))
