context = """Q: What is RLM?
A: A recursive language model.
q: lowercase question?
A: Yes.
Q: Multi
line?
A: Done."""
qs = re.findall(r"^Q: (.*)$", context, re.MULTILINE | re.IGNORECASE)
print(qs)
pairs = re.findall(r"^Q: (.+?)\nA: (.+?)$", context, re.M | re.S | re.I)
print(pairs)
print(re.findall(r"Q: (.*?)\s*A:", context, flags=re.DOTALL))
v = re.compile(r"""
    (\w+)   # word
    \s*=\s*
    (\d+)   # number
""", re.VERBOSE)
print(v.findall("a = 1, bb=22"))
print(re.search(r"^A", context, re.M).start(), re.search(r"multi", context, re.I).group())
