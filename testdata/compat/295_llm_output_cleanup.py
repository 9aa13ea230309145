replies = [
    "```json\n{\"answer\": \"42\", \"confidence\": 0.9}\n```",
    "Here you go: {\"answer\": \"blue\", \"confidence\": 0.55} hope that helps",
    "```\n[1, 2, 3]\n```",
    "FINAL ANSWER: Paris",
    "{\"answer\": 'bad quotes'}",
]
def extract_json(text):
    m = re.search(r"```(?:json)?\s*\n(.*?)\n```", text, re.S)
    if m:
        text = m.group(1)
    else:
        m = re.search(r"(\{.*\}|\[.*\])", text, re.S)
        if m:
            text = m.group(1)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        return {"error": str(e)}
for r in replies:
    print(extract_json(r))
final = re.search(r"FINAL ANSWER:\s*(.+)", replies[3])
print(final.group(1).strip() if final else None)
conf = [extract_json(r).get("confidence", 0) for r in replies if isinstance(extract_json(r), dict)]
print(conf, f"{sum(conf) / len(conf):.3f}")
