context = """2024-01-03 10:00:01 INFO server started on port 8080
2024-01-03 10:00:05 WARN disk usage at 81%
2024-01-03 10:01:17 ERROR connection refused: db-1
2024-01-03 10:02:00 INFO request /api/users 200 12ms
2024-01-03 10:02:03 ERROR timeout after 30s: /api/report
2024-01-03 10:03:44 INFO request /api/users 200 9ms"""
print(type(context))
print(len(context))
print(context[:80])
lines = context.splitlines()
print(f"{len(lines):,} lines, longest {max(len(l) for l in lines)}")
print(lines[-1])
