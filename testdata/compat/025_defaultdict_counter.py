from collections import Counter, defaultdict
text = "the quick brown fox jumps over the lazy dog the end"
wc = Counter(text.split())
print(wc.most_common(2))
print(wc["the"], len(wc))
letters = Counter(c for c in text if c.isalpha())
print(letters.most_common(5))
dd = defaultdict(int)
for w in text.split():
    dd[len(w)] += 1
print(sorted(dd.items()))
groups = defaultdict(list)
for w in text.split():
    groups[w[0]].append(w)
print(dict(groups))
c2 = Counter(["a", "b", "a"])
c2.update(["b", "b", "c"])
print(c2)
print(c2 + Counter(a=1))
print(list(c2.elements()))
print(sum(c2.values()), c2.total())
nested = defaultdict(lambda: defaultdict(int))
nested["x"]["y"] += 2
print(nested["x"]["y"], dict(nested["x"]))
