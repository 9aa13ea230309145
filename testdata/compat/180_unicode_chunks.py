doc = "Zürich — Genève — Malmö — Kraków — São Paulo — Reykjavík"
parts = doc.split(" — ")
print(parts, len(parts))
print([p[:3] for p in parts])
print(sorted(parts, key=len)[-1], sum(len(p) for p in parts))
size = 10
chunks = [doc[i:i + size] for i in range(0, len(doc), size)]
print(len(chunks), chunks[1], chunks[-1])
pos = doc.find("Malmö")
print(pos, doc[pos:pos + 5])
m = re.search(r"K\w+", doc)
print(m.group(), m.start(), m.end(), doc[m.start():m.end()])
print([(m.start(), m.group()) for m in re.finditer("ö", doc)])
print(doc.rfind("—"), len(doc.encode("utf-8")))
