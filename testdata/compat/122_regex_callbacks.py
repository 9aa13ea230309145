import re
text = "Prices: $3.50, $12, and $0.99; totals: $16.49"
amounts = [float(m) for m in re.findall(r"\$(\d+(?:\.\d+)?)", text)]
print(amounts, round(sum(amounts[:-1]), 2))
print(re.findall(r"(\w+): \$(\d+)", "a: $1, b: $22"))
doubled = re.sub(r"\$(\d+(?:\.\d+)?)", lambda m: f"${float(m.group(1)) * 2:.2f}", text)
print(doubled)
print(re.sub(r"\s+", " ", "a   b \n c"), re.sub("x", "y", "xxx", count=2))
m = re.search(r"(?P<cur>\$)(?P<amt>\d+)", text)
print(m.group("amt"), m.groups(), m.group(1, 2))
print(re.compile(r"\d+").sub("#", "a1b22c333"))
print(bool(re.search(r"^Prices", text)), re.search(r"^totals", text))
print(re.split(r"[;,]\s*", text))
print([m.group(0) for m in re.finditer(r"\b\w{6,}\b", text)])
