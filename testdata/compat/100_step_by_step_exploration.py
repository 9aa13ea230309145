import re
import json
context = json.dumps({"docs": [
    {"id": i, "title": f"Doc {i}", "body": ("alpha " * (i % 3)) + ("needle " if i % 4 == 0 else "") + "end"}
    for i in range(12)
]})
print(type(context), len(context))
data = json.loads(context)
docs = data["docs"]
print(len(docs), docs[0])
matches = [d["id"] for d in docs if "needle" in d["body"]]
print("needle in:", matches)
lengths = {d["id"]: len(d["body"].split()) for d in docs}
print(max(lengths, key=lengths.get), min(lengths.values()))
pat = re.compile(r"\balpha\b")
counts = [(d["id"], len(pat.findall(d["body"]))) for d in docs]
print([c for c in counts if c[1] == 2])
answer = {"needle_docs": matches, "total_alpha": sum(n for _, n in counts)}
print(json.dumps(answer))
