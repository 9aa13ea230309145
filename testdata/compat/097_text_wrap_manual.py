text = "The quick brown fox jumps over the lazy dog and keeps running far beyond the hills until night falls."
width = 30
lines, cur = [], ""
for word in text.split():
    if cur and len(cur) + 1 + len(word) > width:
        lines.append(cur)
        cur = word
    else:
        cur = f"{cur} {word}" if cur else word
if cur:
    lines.append(cur)
for l in lines:
    print(f"|{l:<{width}}|")
print(len(lines), max(len(l) for l in lines))
print("\n".join(l.center(width, ".") for l in lines[:2]))
