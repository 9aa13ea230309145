conversation = [
    {"role": "user", "content": "What is the capital of France?"},
    {"role": "assistant", "content": "Paris."},
    {"role": "user", "content": "And of Italy? Please answer briefly."},
    {"role": "assistant", "content": "Rome."},
    {"role": "user", "content": "Thanks!"},
]
print(len(conversation), "turns")
for i, msg in enumerate(conversation):
    preview = msg["content"][:25]
    if len(msg["content"]) > 25:
        preview += "..."
    print(f"[{i}] {msg['role']:>9}: {preview}")
user_msgs = [m["content"] for m in conversation if m["role"] == "user"]
print(user_msgs)
questions = [m for m in user_msgs if "?" in m]
print(len(questions))
lengths = {role: sum(len(m["content"]) for m in conversation if m["role"] == role) for role in ("user", "assistant")}
print(lengths)
print(conversation[-1]["content"].upper())
