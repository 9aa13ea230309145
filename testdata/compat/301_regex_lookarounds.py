text = "Price: $1,299.99 (was $1,499.00); tax 8.5%; code ABC-123, ref XYZ-9; total USD 1409.49"
print(re.findall(r"(?<=\$)[\d,]+\.\d{2}", text))
print(re.findall(r"\b[A-Z]{3}(?=-\d+)", text))
print(re.findall(r"\d+(?:\.\d+)?(?=%)", text))
print(re.findall(r"(?<!\$)\b\d{4}\.\d{2}\b", text))
print(re.sub(r"(?<=\d)(?=(\d{3})+(?!\d))", ",", "1234567 and 89012"))
print(re.findall(r"(?i)usd\s+([\d.]+)", text))
words = "the cat sat on the mat with the hat"
print(re.findall(r"\b(\w+)\b(?=.*\b\1\b)", words))
print(re.split(r"(?<=[.;])\s*", "a. b; c.d"))
