header = "Name: John Smith | Age: 42 | Email: JOHN@EXAMPLE.COM | Notes:  likes  tea  "
fields = {}
for part in header.split("|"):
    key, _, value = part.partition(":")
    fields[key.strip().lower()] = " ".join(value.split())
print(fields)
print(fields["email"].lower(), fields["name"].split()[-1].upper(), fields["age"].isdigit())
print(fields["notes"].title(), fields["notes"].replace("tea", "coffee", 1))
s = "...hello world!!!"
print(s.strip(".!"), s.lstrip("."), s.rstrip("!"), s.find("world"), s.rfind("l"), s.index("o"))
print("a-b-c".split("-", 1), "a-b-c".rsplit("-", 1), "  x  ".center(9, "*"))
print("Hello".ljust(8, ".") + "|", "42".rjust(5, "0"), "hello world".count("o"))
print(",".join(str(i) for i in range(5)), "abc".startswith(("x", "a")), "ABC".isupper())
