context = ("The quick brown fox jumps over the lazy dog. " * 3 + "NEEDLE: secret=7731. " + "Filler text here. " * 4)
needle_pos = context.find("NEEDLE")
print(needle_pos, len(context))
window = 60
start = max(0, needle_pos - window // 2)
snippet = context[start:needle_pos + window // 2]
print(repr(snippet))
m = re.search(r"secret=(\d+)", context)
print(m.group(1), m.start(), m.end(), context[m.start() - 8:m.end()])
hits = [m.start() for m in re.finditer(r"\bfox\b", context)]
print(hits, [context[h:h + 3] for h in hits])
print(context.count("the"), context.lower().count("the"))
