from collections import Counter
replies = [
    "Answer: YES\nReason: the log shows a failure.",
    "answer: no",
    "I think the answer is Yes.",
    "  Answer:   maybe  ",
    "",
]

def parse_answer(reply: str) -> str:
    for line in reply.splitlines():
        key, sep, val = line.strip().partition(":")
        if sep and key.strip().lower() == "answer":
            return val.strip().lower()
    m = re.search(r"\b(yes|no)\b", reply, re.IGNORECASE)
    return m.group(1).lower() if m else "unknown"

parsed = [parse_answer(r) for r in replies]
print(parsed)
yes_count = sum(p == "yes" for p in parsed)
print(f"{yes_count}/{len(parsed)} said yes")
print(Counter(parsed).most_common())
verdict = "yes" if yes_count > len(parsed) / 2 else "no"
print(verdict)
