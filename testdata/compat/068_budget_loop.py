chunks = [f"chunk {i} " + "x" * (i * 37 % 200) for i in range(12)]
budget = 600
batch, batches = [], []
used = 0
for c in chunks:
    if used + len(c) > budget and batch:
        batches.append(batch)
        batch, used = [], 0
    batch.append(c)
    used += len(c)
if batch:
    batches.append(batch)
print(len(batches))
for i, b in enumerate(batches):
    print(i, len(b), sum(len(c) for c in b))
assert sum(len(b) for b in batches) == len(chunks)
print("ok")
