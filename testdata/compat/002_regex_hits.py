import re
context = """alpha ok
beta ERROR disk full
gamma error lowercase
delta ERROR: network down
epsilon ERRORS plural"""
hits = [(i, l) for i, l in enumerate(context.splitlines()) if re.search(r"\bERROR\b", l)]
print(hits)
for i, line in hits:
    print(f"{i:>3}: {line}")
print(len(re.findall(r"error", context, re.IGNORECASE)))
