phone_re = re.compile(r"""
    (?:\+?1[-.\s]?)?        # country code
    \(?(\d{3})\)?           # area code
    [-.\s]?
    (\d{3})                 # exchange
    [-.\s]?
    (\d{4})                 # number
    (?:\s*(?:x|ext\.?)\s*(\d+))?  # extension
""", re.VERBOSE | re.IGNORECASE)
samples = ["(555) 123-4567", "555.987.6543 ext. 12", "+1 800 555 0000", "call 5551234567 x9", "12-34"]
for s in samples:
    m = phone_re.search(s)
    if m:
        area, ex, num, ext = m.groups()
        print(f"{s!r:28} -> {area}-{ex}-{num}" + (f" x{ext}" if ext else ""))
    else:
        print(f"{s!r:28} -> no match")
print(phone_re.pattern.count("\n"), bool(phone_re.flags & re.X))
