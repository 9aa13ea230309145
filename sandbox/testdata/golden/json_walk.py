import json, math
doc = json.loads('{"users": [{"name": "Ann", "age": 31, "tags": ["a", "b"]}, {"name": "Bob", "age": null, "tags": []}], "meta": {"v": 1.5}}')
def walk(x, path="", depth=0):
    if isinstance(x, dict):
        for k, v in x.items():
            walk(v, f"{path}.{k}" if path else k, depth + 1)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            walk(v, f"{path}[{i}]", depth + 1)
    else:
        print(f"{path} = {x!r} ({type(x).__name__})")
walk(doc)
ages = [u["age"] for u in doc["users"] if u["age"] is not None]
print(f"mean age: {sum(ages)/len(ages):.1f}", {u["name"]: len(u["tags"]) for u in doc["users"]})
pairs = sorted([("b", 2), ("a", 2), ("c", 1)], key=lambda p: (-p[1], p[0]))
print(pairs, dict(pairs), list(zip(*pairs)))
s = "The quick brown fox jumps over the lazy dog"
print(s.title(), s.upper()[:9], s[::-1][:5], s.find("fox"), s.index("o"), s.startswith(("The", "A")))
print(s.replace(" ", "_", 3), s.partition(" "), s.count("o"), len(s.split()), s.lower().split("o"))
counts = {}
for ch in s.lower():
    if ch.isalpha():
        counts[ch] = counts.get(ch, 0) + 1
top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
print(top, len(counts))
i = 0
total = 0
while i < 10:
    i += 1
    if i % 3 == 0:
        continue
    if i > 8:
        break
    total += i
print(i, total)
def make_counter():
    c = [0]
    def inc():
        c[0] += 1
        return c[0]
    return inc
inc = make_counter()
inc(); inc()
print(inc())
nums = [3.5, 1.25, 10.0, 2.0]
print(f"{min(nums)} {max(nums)} {sum(nums)} {sum(nums)/len(nums):.3f} {math.sqrt(sum(n*n for n in nums)):.4f}")
matrix = [[1, 2, 3], [4, 5, 6]]
print([list(r) for r in zip(*matrix)], [x for row in matrix for x in row if x % 2], sum(map(sum, matrix)))
print(str(None), str(True), repr(None), f"{None}", bool([]), bool([0]), not None, 3 in [1, 2, 3], "z" not in "abc")
d = dict.fromkeys(["x", "y"], 0)
d.update({"z": 1}, w=2)
print(d, list(d.values()), d.pop("x"), d, "y" in d, sorted(d))
print(f"{12345.6789:,.2f}", f"{0.000123:.2e}", f"{42:>6d}|", f"{-1.5:+.1f}", f"{'x' * 3:*<6}", f"{255:#06x}")
print([(k, v) for k, v in enumerate("abc", 1)], list(map(lambda x: x * 2, range(4))), list(filter(lambda x: x > 1, [0, 1, 2, 3])))
print(int(7.99), int("-12"), float("3"), 7 // 2, 7 % 2, -7 // 2, divmod(17, 5), 2 ** 0.5, 10 / 4)
print(sorted(["b", "A", "c"]), sorted(["b", "A", "c"], key=str.lower), "A".lower() < "b")
print(1e-7, 123456789012345678.0, 0.1 * 3, 1/3 * 3, 2.0 ** 62, float(2 ** 53 + 1), -1e100)
