from datetime import datetime, timedelta, date
import datetime as dt
a = datetime(2024, 3, 1, 12, 30)
b = datetime.fromisoformat("2024-02-28T08:00:05")
d = a - b
print(repr(a), repr(d), d, d.total_seconds(), -d, timedelta(hours=1, minutes=30), timedelta(0), repr(timedelta(days=-1)))
print(a + timedelta(days=30), a > b, sorted([a, b])[0] == b, a.date(), repr(a.date()), a.strftime("%Y/%m/%d %H:%M %p %a %B"))
print(datetime.strptime("Mar 5 2024 3:07PM", "%b %d %Y %I:%M%p"), dt.date(2024, 2, 29).isoformat(), date(2024, 1, 1).weekday())
print(timedelta(days=1) / timedelta(hours=1), timedelta(hours=3) * 2, isinstance(a, date), type(a).__name__)
try:
    datetime.strptime("2024-13-01", "%Y-%m-%d")
except ValueError as e:
    print("ValueError")
