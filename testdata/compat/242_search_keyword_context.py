context = """Chapter 1
The treasure was hidden in the old mill.
Chapter 2
Nobody knew about the mill except Martha.
Chapter 3
Martha moved to the city; the treasure stayed.
"""
keyword = "treasure"
idx = [m.start() for m in re.finditer(keyword, context)]
print(idx)
for i in idx:
    lo, hi = max(0, i - 20), min(len(context), i + len(keyword) + 20)
    print(repr(context[lo:hi]))
lines = context.splitlines()
hits = [(n, l) for n, l in enumerate(lines) if keyword in l.lower()]
print(hits)
print(context.count("mill"), context.find("Martha"), context.rfind("Martha"), context.find("zebra"))
print(context.index("Chapter 3"))
