context = "\n".join(f"[{i:04d}] event={'login' if i % 3 else 'logout'} user=u{i % 7}" for i in range(1, 101))
lines = context.splitlines()
print(f"Total lines: {len(lines)}, total chars: {len(context):,}")
chunk_size = 30
chunks = ["\n".join(lines[i:i + chunk_size]) for i in range(0, len(lines), chunk_size)]
for idx, ch in enumerate(chunks):
    first, last = ch.splitlines()[0], ch.splitlines()[-1]
    print(f"chunk {idx}: {len(ch.splitlines())} lines, {len(ch)} chars | {first[:12]}..{last[:6]}")
print(repr(chunks[-1][:40]))
