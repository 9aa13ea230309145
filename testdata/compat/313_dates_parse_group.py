from datetime import datetime, date, timedelta
events = ["2024-03-01 09:15", "2024-03-01 17:40", "2024-03-04 08:00", "2024-03-10 23:59", "2024-02-29 12:00"]
parsed = sorted(datetime.strptime(e, "%Y-%m-%d %H:%M") for e in events)
print(parsed[0], parsed[-1], parsed[-1] - parsed[0])
by_week = {}
for d in parsed:
    year, week, _ = d.isocalendar()
    by_week.setdefault(f"{year}-W{week:02d}", []).append(d.strftime("%a %H:%M"))
print(by_week)
gaps = [(b - a) for a, b in zip(parsed, parsed[1:])]
print(max(gaps), min(gaps), sum(gaps, timedelta()) / len(gaps))
print([d.strftime("%b %d") for d in parsed if d.weekday() >= 5])
print(date(2024, 3, 1) - date(2023, 3, 1), (date(2024, 12, 25) - date(2024, 3, 1)).days)
