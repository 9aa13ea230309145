context = "no dates in here"
m = re.search(r"(\d{4})-(\d{2})", context)
print(m)
year = m.group(1)
