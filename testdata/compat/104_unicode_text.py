text = "Café “quoted” — naïve résumé"
print(len(text))
print(text[:4], text[-6:])
print(text.upper())
print(text.find("—"), text.index("n"))
words = text.split()
print(words, [len(w) for w in words])
print(text.encode("utf-8")[:6])
print(sorted(set(c for c in text if not c.isascii())))
print(text.replace("“", '"').replace("”", '"'))
for i, ch in enumerate("añb"):
    print(i, ch)
