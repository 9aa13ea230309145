context = """It was the best of times, it was the worst of times, it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity,
it was the season of Light, it was the season of Darkness."""
import re
from collections import Counter
words = re.findall(r"[a-z']+", context.lower())
print(len(words), "words", len(set(words)), "unique")
freq = Counter(words)
for w, n in freq.most_common(5):
    print(f"{w:>8}: {'#' * n} ({n})")
sentences = [s.strip() for s in re.split(r"[.!?]", context) if s.strip()]
print(len(sentences))
avg = sum(len(w) for w in words) / len(words)
print(f"avg word length {avg:.3f}")
longest = sorted(set(words), key=lambda w: (-len(w), w))[:3]
print(longest)
print(context.count("it was"), context.lower().count("it was"))
