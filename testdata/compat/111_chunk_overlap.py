text = " ".join(f"w{i}" for i in range(40))
words = text.split()
size, overlap = 12, 4
chunks = []
start = 0
while start < len(words):
    end = min(start + size, len(words))
    chunks.append(" ".join(words[start:end]))
    if end == len(words):
        break
    start = end - overlap
print(len(chunks))
for i, c in enumerate(chunks):
    print(i, c.split()[0], c.split()[-1], len(c.split()))
covered = set()
for c in chunks:
    covered.update(c.split())
print(len(covered) == len(words))
