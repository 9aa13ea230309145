from collections import Counter
chunk_answers = ["The answer is 42.", "ANSWER: 42", "I could not find it.", "answer is 41", "The value: 42!", "Not found"]
def normalize(a):
    m = re.search(r"\b(\d+)\b", a)
    return m.group(1) if m else None
votes = Counter(filter(None, map(normalize, chunk_answers)))
print(votes)
winner, count = votes.most_common(1)[0]
print(f"winner={winner} ({count}/{len(chunk_answers)} = {count / len(chunk_answers):.0%})")
not_found = sum(1 for a in chunk_answers if re.search(r"not (?:find|found)", a, re.I))
print("not found:", not_found)
final = winner if count > len(chunk_answers) / 2 else "uncertain"
print(final)
