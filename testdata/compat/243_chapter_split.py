context = """# Intro
Welcome text.
## Setup
Install things.
## Usage
Run it.
Run it again.
# Appendix
Extra.
"""
parts = re.split(r"^(#{1,2} .+)$", context, flags=re.M)
print(parts[:4])
sections = {}
for head, body in zip(parts[1::2], parts[2::2]):
    sections[head.lstrip("# ")] = body.strip()
print(sections)
print([h for h in sections if len(sections[h].splitlines()) > 1])
headers = re.findall(r"^(#+) (.*)$", context, re.MULTILINE)
print(headers)
print({t: len(h) for h, t in headers})
