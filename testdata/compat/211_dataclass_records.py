from dataclasses import dataclass, field
@dataclass
class Finding:
    doc_id: str
    score: float
    tags: list = field(default_factory=list)
    note: str = ""

f1 = Finding("d1", 0.9, ["a"])
f2 = Finding(doc_id="d2", score=0.4)
print(f1)
print(f2)
print(f1 == Finding("d1", 0.9, ["a"]))
f2.tags.append("late")
print(f2.tags, Finding("x", 1).tags)
items = sorted([f1, f2], key=lambda f: f.score)
print([f.doc_id for f in items])
