template = "Hello {name}, your order #{order_id} ships on {date}. Missing: {unknown}"
values = {"name": "Ada", "order_id": 4521, "date": "2024-03-02"}
def fill(m):
    key = m.group(1)
    return str(values.get(key, m.group(0)))
print(re.sub(r"\{(\w+)\}", fill, template))
print(re.sub(r"(\d+)", lambda m: str(int(m.group()) * 2), "a1 b22 c333"))
print(re.subn(r"\s+", " ", "too    many \t spaces\n here"))
s = "snake_case_name and another_one"
print(re.sub(r"_([a-z])", lambda m: m.group(1).upper(), s))
print(re.sub(r"(?P<first>\w+) (?P<last>\w+)", r"\g<last>, \g<first>", "Ada Lovelace"))
print(re.sub(r"^", "> ", "line1\nline2", flags=re.M))
