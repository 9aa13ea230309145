people = [("ann", 31, 5.5), ("bob", 25, 6.1), ("cy", 31, 5.9), ("dee", 22, 5.2)]
print(sorted(people, key=lambda p: p[1]))
print(sorted(people, key=lambda p: (-p[1], p[0])))
print(max(people, key=lambda p: p[2]))
print(min(people, key=lambda p: p[2])[0])
words = ["banana", "Apple", "cherry", "date"]
print(sorted(words))
print(sorted(words, key=str.lower))
print(sorted(words, key=len, reverse=True))
words.sort(key=lambda w: w[-1])
print(words)
nums = [5, 3, 8, 1]
nums.sort(reverse=True)
print(nums)
print(list(reversed(nums)))
print(sorted("hello"))
print(max([], default="empty"))
