s = "Hello World 123"
upper = sum(1 for c in s if c.isupper())
digits = [c for c in s if c.isdigit()]
print(upper, digits)
for ch in "abc":
    print(ch, ord(ch))
print(list(s[:5]), sorted(set(s.lower()) - {" "}))
vowels = 0
for c in s.lower():
    if c in "aeiou":
        vowels += 1
print("vowels:", vowels)
print("".join(reversed(s)), "".join(sorted("dcba")))
print(max("hello"), min("hello"), "l" in "hello")
print([w[0] for w in s.split()])
print(dict.fromkeys("aab", 0))
print(tuple("xy"), list(map(ord, "AB")))
print(any(c.isdigit() for c in s), all(c.isalpha() for c in "abc"))
print(list(enumerate("hi")))
