from datetime import datetime, timedelta, date
stamps = ["2024-03-01 12:00:01", "2024-03-01 14:30:00", "2024-03-02 08:15:45"]
dts = [datetime.strptime(s, "%Y-%m-%d %H:%M:%S") for s in stamps]
print(dts[0])
print(repr(dts[0]))
delta = dts[2] - dts[0]
print(delta, delta.total_seconds(), delta.days, delta.seconds)
print(dts[1].strftime("%d/%m/%Y %I:%M %p"), dts[1].strftime("%A %B %j"))
print(dts[0] + timedelta(hours=36))
print(dts[0].date(), dts[0].time(), dts[0].year, dts[0].weekday(), dts[0].isoformat())
print(max(dts) - min(dts) > timedelta(days=1))
d = date(2024, 2, 28) + timedelta(days=1)
print(d, d.isoformat(), d.strftime("%b %d, %Y"))
print(datetime.fromisoformat("2024-05-06T07:08:09"))
print(sorted(dts, reverse=True)[0].hour)
