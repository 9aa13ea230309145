from collections import Counter, defaultdict

conversation = [
    {"user": "ana", "text": "hi all, the build is broken"},
    {"user": "ben", "text": "which build? the nightly build?"},
    {"user": "ana", "text": "yes the nightly build, since tuesday"},
    {"user": "cy", "text": "I can look at it"},
    {"user": "ana", "text": "thanks cy"},
    {"user": "ben", "text": "build logs are in the usual place"},
]

by_user = Counter(m["user"] for m in conversation)
print(by_user.most_common())
print(by_user.most_common(1)[0][0])

words = Counter()
for m in conversation:
    for w in re.findall(r"[a-z]+", m["text"].lower()):
        words[w] += 1
print(words.most_common(4))

grouped = defaultdict(list)
for i, m in enumerate(conversation, 1):
    grouped[m["user"]].append(i)
for user, idxs in grouped.items():
    print(f"{user}: messages {idxs}")
print(dict(grouped))
