nums = "5 3 8 1 9 2"
xs = list(map(int, nums.split()))
print(xs, sorted(xs), sorted(xs, reverse=True)[:3])
evens = list(filter(lambda x: x % 2 == 0, xs))
print(evens)
print(list(map(lambda a, b: a * b, [1, 2, 3], [4, 5, 6])))
print(list(map(str.upper, ["a", "b"])), list(filter(None, [0, 1, "", "x", None, []])))
words = ["kiwi", "fig", "banana", "apple"]
print(sorted(words, key=lambda w: (len(w), w)))
pairs = list(zip(words, map(len, words)))
print(pairs)
total = 0
for x in map(float, ["1.5", "2.5"]):
    total += x
print(total)
