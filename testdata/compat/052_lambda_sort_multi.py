files = [
    {"name": "a.txt", "size": 300, "ext": "txt"},
    {"name": "b.py", "size": 1200, "ext": "py"},
    {"name": "c.py", "size": 300, "ext": "py"},
    {"name": "d.md", "size": 50, "ext": "md"},
]
by_size = sorted(files, key=lambda f: (f["size"], f["name"]))
print([f["name"] for f in by_size])
print([f["name"] for f in sorted(files, key=lambda f: f["size"], reverse=True)])
exts = sorted({f["ext"] for f in files})
print(exts)
largest_by_ext = {}
for f in files:
    cur = largest_by_ext.get(f["ext"])
    if cur is None or f["size"] > cur["size"]:
        largest_by_ext[f["ext"]] = f
print({k: v["name"] for k, v in largest_by_ext.items()})
total = sum(map(lambda f: f["size"], files))
print(total, f"{total / 1024:.2f} KiB")
key = lambda f: f["name"].split(".")[0]
print(list(map(key, files)))
