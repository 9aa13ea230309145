context = "\n".join(["# Section %d\n" % s + "\n".join(f"item {s}.{k} costs ${k * 1.25:.2f}" for k in range(1, 6)) for s in range(1, 5)])
lines = context.splitlines()
print(len(lines), "lines")
def chunk_lines(lines, n):
    for i in range(0, len(lines), n):
        yield i // n, lines[i:i + n]
summary = []
for idx, block in chunk_lines(lines, 7):
    headers = [l for l in block if l.startswith("#")]
    total = sum(float(m.group(1)) for l in block for m in [re.search(r"\$(\d+\.\d+)", l)] if m)
    summary.append((idx, len(block), headers, round(total, 2)))
for row in summary:
    print(row)
print("grand total:", sum(r[3] for r in summary))
