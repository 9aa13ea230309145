from collections import Counter
text = """It was the best of times, it was the worst of times, it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity"""
words = re.findall(r"[a-z']+", text.lower())
c = Counter(words)
print(len(words), len(c))
print(c.most_common(5))
stop = {"the", "of", "it", "was"}
content = Counter(w for w in words if w not in stop)
print(content.most_common(3))
print(c["times"], c["missing"], sum(c.values()))
bigrams = Counter(zip(words, words[1:]))
print(bigrams.most_common(2))
print(sorted(content.items(), key=lambda kv: (-kv[1], kv[0]))[:4])
