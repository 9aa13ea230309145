context = """2024-01-03 10:00:01 INFO  server started on port 8080
2024-01-03 10:00:05 WARN  cache miss rate 12.5%
2024-01-03 10:01:17 ERROR db timeout after 30s (query=users)
2024-01-03 10:02:00 INFO  request /api/users 200 35ms
2024-01-03 10:02:01 ERROR db timeout after 30s (query=orders)
2024-01-03 10:03:44 INFO  request /api/orders 500 1204ms
2024-01-03 10:04:10 DEBUG gc pause 4ms
"""

# Let me first get an overview of the log structure
lines = context.strip().split("\n")
print(f"Total lines: {len(lines)}")
print(f"First line: {lines[0]!r}")

levels = {}
for line in lines:
    parts = line.split()
    level = parts[2]
    levels[level] = levels.get(level, 0) + 1

for level, count in sorted(levels.items(), key=lambda kv: -kv[1]):
    print(f"  {level:<6} {count:>3}")

errors = [l for l in lines if "ERROR" in l]
print(f"\nFound {len(errors)} errors:")
print("\n".join(f"- {e[20:]}" for e in errors))
