import hashlib
docs = ["alpha beta", "gamma", "alpha beta", "Gamma", "delta"]
seen = {}
for i, d in enumerate(docs):
    h = hashlib.md5(d.encode("utf-8")).hexdigest()
    if h in seen:
        print(f"doc {i} duplicates doc {seen[h]}")
    else:
        seen[h] = i
print(len(seen))
print(hashlib.sha256(b"hello").hexdigest())
print(hashlib.sha1("hello".encode()).hexdigest()[:12])
h = hashlib.sha256()
h.update(b"hel")
h.update(b"lo")
print(h.hexdigest() == hashlib.sha256(b"hello").hexdigest())
print(hashlib.md5(b"").hexdigest(), len(hashlib.sha256(b"x").digest()))
