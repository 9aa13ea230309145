text = """Alice was beginning to get very tired of sitting by her sister on the bank.
Once or twice she had peeped into the book her sister was reading.
'And what is the use of a book,' thought Alice, 'without pictures or conversations?'"""
sentences = [s for s in re.split(r"(?<=[.?!])\s+", text) if s]
words = re.findall(r"\b[\w']+\b", text)
print(len(sentences), len(words), len(set(w.lower() for w in words)))
avg = sum(len(w) for w in words) / len(words)
print(f"avg word length: {avg:.2f}")
longest = max(words, key=len)
print(longest, len(longest))
caps = sorted({w for w in words if w[0].isupper()})
print(caps)
for i, s in enumerate(sentences, 1):
    print(f"[{i}] {len(s.split()):>2} words: {s[:40]}{'...' if len(s) > 40 else ''}")
