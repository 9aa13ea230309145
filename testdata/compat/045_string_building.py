rows = [("alpha", 1, 0.5), ("beta", 22, 0.25), ("gamma", 333, 0.125)]
out = []
out.append("| name | n | share |")
out.append("|------|---|-------|")
for name, n, share in rows:
    out.append(f"| {name} | {n} | {share:.1%} |")
report = "\n".join(out)
print(report)
width = max(len(r[0]) for r in rows)
for name, n, share in rows:
    print(name.ljust(width), str(n).rjust(4), "%6.2f" % (share * 100))
s = ""
for i in range(5):
    s += str(i)
print(s)
parts = ["a", "b", "c"]
print(", ".join(parts[:-1]) + " and " + parts[-1])
print("=" * 20)
print(f"{'centered':^20}")
print("-" * 20)
