from datetime import datetime
for s in ["2024-13-01", "2024-02-30", "01/02/2024", "2024-01-05"]:
    try:
        d = datetime.strptime(s, "%Y-%m-%d")
        print(s, "ok", d.strftime("%a"))
    except ValueError as e:
        print(s, "error:", e)
print(timedelta_total := (datetime(2024, 1, 2) - datetime(2024, 1, 1)).total_seconds())
print(datetime(2024, 1, 1, 9, 5).strftime("%H:%M"), datetime(2024, 1, 1) < datetime(2024, 1, 2))
