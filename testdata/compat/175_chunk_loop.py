context = "\n".join(f"line {i}: " + ("lorem ipsum " * (i % 4)) for i in range(1, 23))
chunk_size = 200
chunks = [context[i:i + chunk_size] for i in range(0, len(context), chunk_size)]
print(f"{len(context)} chars -> {len(chunks)} chunks")
for idx, ch in enumerate(chunks):
    first = ch.splitlines()[0] if ch else ""
    print(f"chunk {idx}: {len(ch):4d} chars, starts {first[:20]!r}")

lines = context.splitlines()
batch = 5
for start in range(0, len(lines), batch):
    group = lines[start:start + batch]
    print(start, "->", start + len(group) - 1, sum(len(l) for l in group))
