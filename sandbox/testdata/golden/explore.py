import re, json
from collections import Counter, defaultdict
text = """2024-01-01 INFO user=alice action=login
2024-01-01 ERROR user=bob action=upload size=1024
2024-01-02 WARN user=alice action=upload size=2048
2024-01-02 ERROR user=carol action=delete
"""
lines = text.strip().split("\n")
print(f"Total lines: {len(lines)}")
levels = Counter(l.split()[1] for l in lines)
print(levels)
for lvl, n in levels.most_common():
    print(f"  {lvl:<6} {n:>3} ({n / len(lines):.0%})")
users = defaultdict(list)
for l in lines:
    m = re.search(r"user=(\w+) action=(\w+)", l)
    if m:
        users[m.group(1)].append(m.group(2))
print(dict(users))
sizes = [int(x) for x in re.findall(r"size=(\d+)", text)]
print(sizes, sum(sizes) / len(sizes), max(sizes, default=0))
by_day = {}
for l in lines:
    day = l[:10]
    by_day.setdefault(day, []).append(l.split()[1])
print(json.dumps(by_day, indent=2))
print(sorted(by_day.items(), key=lambda kv: len(kv[1]), reverse=True)[0])
chunks = [text[i:i + 50] for i in range(0, len(text), 50)]
print(len(chunks), repr(chunks[0]))
print("%-10s|%5d|%8.3f" % ("name", 42, 3.14159))
print("{:>10}|{:^10}|{:<10}|".format("r", "c", "l"))
data = {"a": {"b": [1, 2, {"c": None}]}, "d": (1, 2)}
print(data, str(data), [str(x) for x in (1, 2.0, None, True)])
print(f"{'nested'!r:>12}", f"{3.0}", f"{10**20}", f"{1/7:.3e}")
words = re.split(r"\W+", "Hello, world! Hello again.")
print([w.lower() for w in words if w], Counter(w.lower() for w in words if w).most_common(1))
print(" | ".join(f"{k}={v}" for k, v in sorted({"b": 2, "a": 1}.items())))
print(list(range(10))[::3], list(range(10, 0, -3)), "abcdef"[-3:], [1, 2, 3][::-1])
x = 7
print("even" if x % 2 == 0 else "odd", x // 2, x / 2, -x // 2, x ** 2, abs(-x))
result = {"answer": 42, "evidence": ["line 1", "line 2"]}
print(result.get("answer"), result.get("missing", "n/a"), list(result.keys()), len(result))
print(any(l.startswith("2024-01-02") for l in lines), all("user=" in l for l in lines))
print(max(lines, key=len)[:20], min(len(l) for l in lines))
print(sum(1 for l in lines if "ERROR" in l), [i for i, l in enumerate(lines) if "WARN" in l])
print("%.2f%%" % 12.345, "%s and %s" % ("a", "b"), "%5.1f" % 2.25, "%d" % True)
t = (1, "a", 2.5)
a, b, c = t
print(a, b, c, t[1:], t * 2, t + (None,), len(t), t.index("a"))
print(round(3.14159, 3), round(-0.5), round(1.5), int("0x1f", 16))
print(", ".join(map(str, [1, 2, 3])), "".join(reversed("abc")), "a" < "b", [1, 2] < [1, 3])
