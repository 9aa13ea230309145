data = {"alpha": (1520, 0.2312), "beta": (87, 0.0451), "gamma_long_name": (123456, 0.7237)}
w = max(len(k) for k in data)
print(f"{'key':<{w}}  {'count':>9}  {'pct':>7}")
print(f"{'':=<{w + 20}}")
for k, (n, p) in sorted(data.items(), key=lambda kv: kv[1][0], reverse=True):
    print(f"{k:<{w}}  {n:>9,}  {p:>7.2%}")
total = sum(n for n, _ in data.values())
print(f"{'TOTAL':<{w}}  {total:>9,}  {sum(p for _, p in data.values()):>7.1%}")
print("{:<6}|{:^6}|{:>6}".format(*"abc"))
print("%-6s|%6.2f|%-+6d|" % ("x", 2.5, 3))
