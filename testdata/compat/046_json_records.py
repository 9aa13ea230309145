import json
records_json = """[
  {"id": "a1", "score": 0.82, "tags": ["news", "tech"], "published": true},
  {"id": "b2", "score": 0.35, "tags": ["sports"], "published": false},
  {"id": "c3", "score": 0.91, "tags": ["tech", "ai"], "published": true},
  {"id": "d4", "score": null, "tags": [], "published": true}
]"""
records = json.loads(records_json)
print(len(records), type(records[0]).__name__)
scored = [r for r in records if r["score"] is not None]
print([r["id"] for r in sorted(scored, key=lambda r: r["score"], reverse=True)])
tags = {}
for r in records:
    for t in r["tags"]:
        tags[t] = tags.get(t, 0) + 1
print(tags)
print(json.dumps(records[0]))
summary = {"count": len(records), "published": sum(1 for r in records if r["published"]), "mean": round(sum(r["score"] for r in scored) / len(scored), 3)}
print(json.dumps(summary, indent=2))
print(json.dumps({"t": (1, 2), "f": 1.0, "s": "q\"uote"}))
