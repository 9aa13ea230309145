import re
raw = "  Hello,   WORLD!!  This   is   a   TEST...  \n\n  Second   line\t\there. "
clean = re.sub(r"\s+", " ", raw).strip()
print(repr(clean))
print(clean.lower())
no_punct = re.sub(r"[^\w\s]", "", clean)
print(no_punct)
tokens = no_punct.lower().split()
print(tokens)
print([t for t in tokens if len(t) > 3])
print(" ".join(w.capitalize() for w in tokens))
print(re.sub(r"(\w)(\w*)", lambda m: m.group(1).upper() + m.group(2), "make title case"))
print(len(raw), len(clean))
