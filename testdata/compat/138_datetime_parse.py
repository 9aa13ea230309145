from datetime import datetime, timedelta, date
stamps = ["2024-03-01 12:30:00", "2024-02-28 08:00:00", "2024-03-01 09:15:00"]
parsed = [datetime.strptime(s, "%Y-%m-%d %H:%M:%S") for s in stamps]
print(min(parsed), max(parsed))
print((max(parsed) - min(parsed)).days, (parsed[0] - parsed[2]).seconds)
print(parsed[0].strftime("%d/%m/%Y"), parsed[0].year, parsed[0].month, parsed[0].weekday())
print(date(2024, 1, 31) + timedelta(days=1))
print(sorted(parsed)[0].isoformat())
