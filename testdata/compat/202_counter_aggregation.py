from collections import Counter
context = """alice bought apples
bob bought bananas
alice bought bananas
carol sold apples
alice sold cherries
bob bought apples"""
users = Counter(line.split()[0] for line in context.splitlines())
print(users)
print(users.most_common(2))
items = Counter()
for line in context.splitlines():
    who, verb, what = line.split()
    items[what] += 1 if verb == "bought" else -1
print(dict(items))
print(items["durian"], len(items))
words = Counter(context.split())
print(words.most_common(3))
total = sum(words.values())
print(total, f"{words['bought'] / total:.1%}")
c2 = users + Counter(dave=2, alice=-1)
print(c2)
print(users - Counter(alice=2))
print(sorted(users.elements()))
