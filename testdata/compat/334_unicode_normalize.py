import unicodedata
names = ["José", "Jose\u0301", "JOSÉ", "Zoë", "Ærøskøbing", "naïve café"]
def norm(s):
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c))
    return s.casefold()
print([norm(n) for n in names])
print(names[0] == names[1], unicodedata.normalize("NFC", names[1]) == names[0])
print(len(names[0]), len(names[1]), [unicodedata.name(c) for c in "é€"])
print(unicodedata.category("A"), unicodedata.category("1"), unicodedata.category(" "))
slug = re.sub(r"[^a-z0-9]+", "-", norm("Hello, Wörld! 2024")).strip("-")
print(slug)
