context = "id=17 name=foo\nno id here\nid=42 name=bar\n"
results = []
for line in context.splitlines():
    if (m := re.search(r"id=(\d+)", line)):
        results.append(int(m.group(1)))
print(results)
data = [3, 8, 1, 9]
if (n := len(data)) > 3:
    print(f"long list ({n} items)")
print([y for x in data if (y := x * 2) > 5])
chunks = iter(["a", "b", ""])
while (c := next(chunks)):
    print("chunk", c)
print(n, y)
