from collections import Counter
conversation = [
    {"user": "alice", "text": "hi"},
    {"user": "bob", "text": "hello"},
    {"user": "alice", "text": "how are you?"},
    {"user": "carol", "text": "hey"},
    {"user": "alice", "text": "ok"},
    {"user": "bob", "text": "fine"},
]
counts = Counter(m["user"] for m in conversation)
print(counts.most_common(3))
print(counts["alice"], counts["zed"])
print(sorted(counts.items()))
total = sum(counts.values())
for user, n in counts.most_common():
    print(f"{user:<6} {n:>2} {n / total:.1%}")
