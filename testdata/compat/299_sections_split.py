doc = """INTRODUCTION
This report covers Q1.

## Revenue
Revenue grew 12% to $4.5M.

## Costs
Costs were flat at $3.1M.

## Outlook
We expect growth of 8-10%.
"""
sections = re.split(r"^## (.+)$", doc, flags=re.M)
print(len(sections))
preamble = sections[0].strip()
parts = dict(zip(sections[1::2], [s.strip() for s in sections[2::2]]))
print(repr(preamble))
for title, body in parts.items():
    nums = re.findall(r"\$?(\d+(?:\.\d+)?)(M|%)?", body)
    print(f"{title:<10}| {body[:30]:<30} | {nums}")
