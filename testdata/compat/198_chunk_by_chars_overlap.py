context = ("The quick brown fox jumps over the lazy dog. " * 40).strip()
size, overlap = 200, 50
chunks = []
start = 0
while start < len(context):
    end = min(start + size, len(context))
    chunks.append(context[start:end])
    if end == len(context):
        break
    start = end - overlap
print(len(chunks), [len(c) for c in chunks])
print(chunks[1][:60])
print(sum(len(c) for c in chunks) - (len(chunks) - 1) * overlap == len(context))
