from collections import Counter
context = """It was the best of times, it was the worst of times, it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity."""
words = re.findall(r"[a-z']+", context.lower())
print(len(words), len(set(words)))
freq = Counter(words)
for w, c in freq.most_common(5):
    print(f"{w:>10} {c:3d} {'#' * c}")
stop = {"it", "was", "the", "of"}
content = [w for w in words if w not in stop]
print(Counter(content).most_common(3))
bigrams = Counter(zip(words, words[1:]))
print(bigrams.most_common(2))
avg = sum(map(len, words)) / len(words)
print(f"avg word length: {avg:.3f}")
longest = max(words, key=len)
print(longest, len(longest))
