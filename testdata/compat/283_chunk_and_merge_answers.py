context = "\n".join(f"Record {i}: value={i * 7 % 13}" for i in range(25))
chunk_size = 300
chunks = [context[i:i + chunk_size] for i in range(0, len(context), chunk_size)]
print(len(chunks), [len(c) for c in chunks])
partials = []
for ci, ch in enumerate(chunks):
    vals = [int(v) for v in re.findall(r"value=(\d+)", ch)]
    partials.append({"chunk": ci, "n": len(vals), "max": max(vals) if vals else None})
print(partials)
print(sum(p["n"] for p in partials))
best = max((p for p in partials if p["max"] is not None), key=lambda p: (p["max"], -p["chunk"]))
print(best)
print(json.dumps(partials[:2]))
