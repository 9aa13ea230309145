import json

result = {
    "question": "Which services failed?",
    "answer": ["db", "cache"],
    "confidence": 0.85,
    "evidence": {"db": 3, "cache": 1},
    "notes": None,
    "verified": False,
}
print(json.dumps(result, indent=2))
print(json.dumps(result["evidence"], sort_keys=True))
print(json.dumps([1, "two", 3.5, True]))
print(json.dumps({"k": "caf\u00e9"}), json.dumps({"k": "caf\u00e9"}, ensure_ascii=False))
print(json.dumps({"a": 1, "b": 2}, separators=(",", ":")))
back = json.loads(json.dumps(result))
print(back == result, type(back["confidence"]).__name__)
