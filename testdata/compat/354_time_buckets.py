from datetime import datetime, timedelta
from collections import Counter
stamps = ["2024-07-01T08:05:00", "2024-07-01T08:14:59", "2024-07-01T08:15:00", "2024-07-01T09:47:30", "2024-07-02T00:00:01"]
dts = [datetime.fromisoformat(s) for s in stamps]
def bucket(dt, minutes=15):
    return dt - timedelta(minutes=dt.minute % minutes, seconds=dt.second, microseconds=dt.microsecond)
c = Counter(bucket(d).strftime("%m-%d %H:%M") for d in dts)
print(sorted(c.items()))
span = dts[-1] - dts[0]
print(span, span.total_seconds() / 3600, divmod(int(span.total_seconds()), 3600))
print(max(dts).isoformat(timespec="minutes"), dts[0].strftime("%Y%m%d-%H%M%S"))
print([d.hour for d in dts], sorted({d.date() for d in dts}))
