urls = ["https://a.com/x", "http://b.org", "https://a.com/x", "https://c.net/y?z=1", "http://b.org", "https://d.io"]
seen = set()
unique = []
for u in urls:
    if u not in seen:
        seen.add(u)
        unique.append(u)
print(unique)
print(list(dict.fromkeys(urls)) == unique, len(seen))
domains = sorted({re.match(r"https?://([^/?]+)", u).group(1) for u in urls})
print(domains)
a = {1, 2, 3, 4}
b = {3, 4, 5}
print(sorted(a & b), sorted(a | b), sorted(a - b), sorted(a ^ b), a <= {1, 2, 3, 4, 5})
print(sorted(set("hello world") - {" "}), len(frozenset("aab")))
