context = "\n".join(f"Line {i}: event={'ERROR' if i % 7 == 0 else 'ok'} value={i * 3}" for i in range(1, 61))
chunk_size = 400
overlap = 50
chunks = []
start = 0
while start < len(context):
    end = min(start + chunk_size, len(context))
    chunks.append(context[start:end])
    if end == len(context):
        break
    start = end - overlap
print(f"Total length: {len(context)}, chunks: {len(chunks)}")
for i, ch in enumerate(chunks):
    errors = ch.count("ERROR")
    print(f"chunk {i:02d}: chars={len(ch):4d} errors={errors} first={ch[:12]!r}")
