text = "Café “quoted” — naïve façade… 日本語 ok"
print(len(text))
print(text[0:4], text[5:13], text[-6:])
print(text.find("—"), text.index("日"), text[text.find("日")])
for i, ch in enumerate("añb"):
    print(i, ch)
print([c for c in "héllo" if c not in "aeiou"])
print(text.upper())
print(text[::-1][:5])
words = text.split()
print(max(words, key=len), len(max(words, key=len)))
print("é" in text, text.count("a"), "naïve".center(9, "*"))
print(f"{'café':>6}|{'über':<6}|")
print(ord("é"), chr(233), "résumé".encode("utf-8"))
