from datetime import datetime, timedelta, date
ref = datetime(2024, 5, 15, 14, 30)
def ago(dt):
    delta = ref - dt
    if delta < timedelta(minutes=1):
        return "just now"
    if delta < timedelta(hours=1):
        return f"{delta.seconds // 60} minutes ago"
    if delta.days == 0:
        return f"{delta.seconds // 3600} hours ago"
    if delta.days < 7:
        return f"{delta.days} days ago"
    return dt.strftime("%Y-%m-%d")
for d in [ref - timedelta(seconds=30), ref - timedelta(minutes=45), ref - timedelta(hours=5), ref - timedelta(days=3), datetime(2024, 1, 2)]:
    print(ago(d))
month_start = ref.replace(day=1, hour=0, minute=0)
next_month = (month_start + timedelta(days=32)).replace(day=1)
print(month_start, next_month, (next_month - month_start).days)
print(date.fromisoformat("2024-05-15").isoweekday(), ref.date().isoformat(), ref.timetuple().tm_yday)
