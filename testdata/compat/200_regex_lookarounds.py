text = "Price: $1,299.99; discount $50; tax 8.5%; total USD 1349.99. Also $7 and $12.50."
dollars = re.findall(r"(?<=\$)[\d,]+(?:\.\d+)?", text)
print(dollars)
print(re.findall(r"\d+(?=%)", text))
print(re.findall(r"(?<!\$)\b\d+\.\d+\b", text))
print(re.sub(r"(?<=\d)(?=(\d{3})+(?!\d))", "_", "1234567 and 89"))
words = re.findall(r"\b[A-Z]{2,}\b", text)
print(words)
print(re.split(r"(?<=;)\s*", text)[:3])
