context = "\n".join(f"line {i}: " + "word " * (i % 5) for i in range(23))
chunk_size = 100
chunks = [context[i:i + chunk_size] for i in range(0, len(context), chunk_size)]
print(len(chunks))
for idx, ch in enumerate(chunks):
    print(idx, len(ch), repr(ch[:20]))
lines = context.split("\n")
batches = [lines[i:i+5] for i in range(0, len(lines), 5)]
print([len(b) for b in batches])
