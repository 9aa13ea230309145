import re
log = """user=alice id=17 action=login
user=bob id=42 action=logout
user=carol id=7 action=login"""
pat = re.compile(r"user=(\w+) id=(\d+) action=(\w+)")
for m in pat.finditer(log):
    print(m.group(1), int(m.group(2)), m.group(3), m.span())
print(pat.findall(log))
m = re.search(r"id=(?P<id>\d+)", log)
print(m.group("id"), m.groupdict(), m.start(), m.end(), m.group(0))
print(re.sub(r"\d+", "#", log.splitlines()[0]))
print(re.sub(r"(\w+)=(\w+)", r"\2:\1", "a=1 b=2"))
print(re.split(r"\s*,\s*", "a , b,c ,d"))
print(re.match(r"user", log) is not None, re.match(r"id", log))
print(re.fullmatch(r"\d+", "123") is not None, re.fullmatch(r"\d+", "12a"))
print(re.findall(r"^user=(\w+)", log, re.MULTILINE))
print(re.findall(r"a.b", "a\nb", re.DOTALL))
print(len(re.findall(r"LOGIN", log, flags=re.I)))
print(re.escape("a.b*c"))
emails = re.findall(r"[\w.]+@[\w.]+\.\w+", "contact: a.b@x.com, c@y.org; bad@z")
print(emails)
