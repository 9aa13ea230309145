from datetime import datetime
context = "Meeting on 2024-03-15, follow-up 03/22/2024, deadline April 5, 2024 and 2024-12-01."
iso = re.findall(r"\b(\d{4})-(\d{2})-(\d{2})\b", context)
print(iso)
us = re.findall(r"\b(\d{2})/(\d{2})/(\d{4})\b", context)
print(us)
dates = [datetime(int(y), int(m), int(d)) for y, m, d in iso]
dates += [datetime.strptime(f"{m}/{d}/{y}", "%m/%d/%Y") for m, d, y in us]
long = re.search(r"([A-Z][a-z]+ \d{1,2}, \d{4})", context).group(1)
dates.append(datetime.strptime(long, "%B %d, %Y"))
dates.sort()
print([d.strftime("%Y-%m-%d") for d in dates])
gaps = [(b - a).days for a, b in zip(dates, dates[1:])]
print(gaps, max(gaps))
print(dates[0].strftime("%a %d %b %Y"), dates[-1].month, dates[-1].isoweekday())
