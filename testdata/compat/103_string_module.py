import string
print(string.ascii_lowercase)
print(string.digits, string.punctuation[:10])
text = "Hello, World! 123"
print("".join(c for c in text if c not in string.punctuation))
table = str.maketrans("", "", string.punctuation)
print(text.translate(table))
print(text.translate(str.maketrans("lo", "01")))
print(sum(c in string.ascii_uppercase for c in text))
