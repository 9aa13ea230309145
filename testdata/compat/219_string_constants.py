import string
print(string.ascii_lowercase)
print(string.ascii_uppercase[:5], string.digits, len(string.punctuation))
print(string.punctuation)
text = "Hello, World! It's 2024... ok?"
cleaned = text.translate(str.maketrans("", "", string.punctuation))
print(cleaned)
print("".join(c for c in text if c not in string.punctuation).lower().split())
print(string.capwords("the quick  brown fox"))
print(repr(string.whitespace))
print(string.ascii_letters[20:30], string.hexdigits)
t = string.Template("$who likes ${what}")
print(t.substitute(who="ann", what="tea"))
