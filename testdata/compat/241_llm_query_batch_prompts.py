context = "\n\n".join(f"Section {i}: " + ("lorem ipsum " * (i * 3)).strip() for i in range(1, 6))
sections = context.split("\n\n")
prompts = []
for i, sec in enumerate(sections):
    prompt = f"""You are reading section {i + 1} of {len(sections)}.
Summarize in one sentence.
---
{sec[:60]}
---"""
    prompts.append(prompt)
print(len(prompts))
print(prompts[2])
print(max(len(p) for p in prompts), min(map(len, sections)))
answers = [f"Summary of section {i+1}" for i in range(len(prompts))]
final = "\n".join(f"- {a}" for a in answers)
print(final)
