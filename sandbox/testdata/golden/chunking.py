context = "\n".join(f"Section {i}: " + ("lorem ipsum dolor " * (i % 5 + 1)).strip() for i in range(1, 13))
print(context[:80])
print(f"Context length: {len(context)} chars, {len(context.split())} words, {context.count(chr(10)) + 1} lines")
chunk_size = 200
chunks = []
start = 0
while start < len(context):
    end = min(start + chunk_size, len(context))
    nl = context.rfind("\n", start, end)
    if nl > start and end < len(context):
        end = nl + 1
    chunks.append(context[start:end])
    start = end
print(len(chunks), [len(c) for c in chunks])
pos = 0
found = []
while True:
    i = context.find("Section 1", pos)
    if i == -1:
        break
    found.append(i)
    pos = i + 1
print(found)
table = [("alpha", 1, 0.5), ("beta", 22, 12.25), ("gamma", 333, 100.0)]
print(f"{'name':<8}{'n':>5}{'pct':>8}")
print("-" * 21)
for name, n, pct in table:
    print(f"{name:<8}{n:>5}{pct:>7.1f}%")
stats = {"count": len(table), "total": sum(r[1] for r in table), "avg": sum(r[2] for r in table) / len(table)}
print(stats)
print("\n".join(f"- {k}: {v}" for k, v in stats.items()))
freq = {}
for w in context.lower().replace(":", " ").split():
    freq[w] = freq.get(w, 0) + 1
print(sorted(freq.items(), key=lambda x: x[1], reverse=True)[:4])
answer = {"sections": len(chunks), "top_word": max(freq, key=freq.get)}
print(answer, type(answer["sections"]) is int)
nums = "3, 17, 4, 42, 8".split(", ")
nums = list(map(int, nums))
nums.sort(reverse=True)
print(nums, nums[:2], sum(nums) // len(nums), sorted(nums)[len(nums) // 2])
s = "  Mixed CASE text, with punctuation!!  "
clean = "".join(c for c in s.lower() if c.isalnum() or c.isspace()).split()
print(clean, " ".join(clean).title(), s.strip().rstrip("!"), s.strip("! "))
print("abc".encode(), b"abc".decode(), bytes([104, 105]), str(b"x", "utf-8"), list(b"hi"))
print(f"{'=' * 10} DONE {'=' * 10}")
