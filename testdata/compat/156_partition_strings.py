headers = """Content-Type: text/html; charset=utf-8
X-Request-Id: abc-123
Set-Cookie: session=xyz; Path=/
Malformed header line
Retry-After: 120"""
parsed = {}
for line in headers.splitlines():
    name, sep, value = line.partition(":")
    if not sep:
        print(f"skipping {line!r}")
        continue
    parsed[name.strip().lower()] = value.strip()
print(parsed)
print(parsed["content-type"].rpartition("=")[2])
print("a.b.c".rpartition("."), "abc".partition("x"))
print("key = value = more".split("=", 1))
print("  padded  ".strip(), "xxhixx".strip("x"), "path/to/file.txt".rsplit("/", 1))
