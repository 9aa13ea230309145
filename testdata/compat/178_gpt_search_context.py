from collections import Counter
context = """Chapter 1. The Beginning
Mara arrived at the station at dawn. The magic number is 4821.
Chapter 2. The Journey
She met Tomas, who claimed the magic number was 1234 — he was lying.
Chapter 3. The End
In the end the real code was 4821, confirmed twice."""

# Search for numbers mentioned near "magic number"
keyword = "magic number"
for lineno, line in enumerate(context.splitlines(), start=1):
    idx = line.lower().find(keyword)
    if idx != -1:
        snippet = line[max(0, idx - 10): idx + len(keyword) + 15]
        print(f"L{lineno} @{idx}: ...{snippet}...")

numbers = re.findall(r"\b\d{4}\b", context)
print(Counter(numbers).most_common(1))
chapters = [l for l in context.splitlines() if l.startswith("Chapter")]
print(len(chapters), chapters[-1].split(". ", 1)[1])
