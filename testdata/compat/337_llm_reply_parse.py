replies = [
    'Sure! Here is the result:\n```json\n{"answer": "Paris", "confidence": 0.92}\n```',
    '{"answer": "Berlin", "confidence": "high"}',
    "I think the answer is **Rome** (confidence: 70%).",
    '```\n{"answer": null}\n```',
    'Answer: {"answer": "Madrid", "extra": [1, 2,]}',
]
def extract(reply):
    m = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", reply, re.S)
    candidate = m.group(1) if m else reply[reply.find("{"):reply.rfind("}") + 1]
    try:
        return json.loads(candidate)
    except json.JSONDecodeError as e:
        bold = re.search(r"\*\*(.+?)\*\*", reply)
        return {"answer": bold.group(1) if bold else None, "error": str(e)[:40]}
for r in replies:
    print(extract(r))
answers = [extract(r).get("answer") for r in replies]
print([a for a in answers if a], answers.count(None))
