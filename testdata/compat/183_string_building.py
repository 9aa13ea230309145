results = [("Q1", "revenue grew 10%", 0.91), ("Q2", "flat", 0.55), ("Q3", "decline in EU", 0.78)]
lines = []
for q, note, conf in results:
    lines.append(f"- **{q}**: {note} (confidence {conf:.0%})")
report = "\n".join(lines)
print(report)
bullets = "\n".join(f"{i}. {q}" for i, (q, _, _) in enumerate(results, 1))
print(bullets)
out = ""
for q, _, conf in results:
    out += q + ("!" if conf > 0.8 else "") + " "
print(out.rstrip())
print(", ".join(map(str, [1, 2, 3])), "-".join(["x"] * 3))
print("=" * 20)
print("|".join(str(c).center(5) for c in [1, 22, 333]))
