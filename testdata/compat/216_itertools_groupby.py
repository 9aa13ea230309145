from itertools import groupby
events = [("2024-01-01", "login"), ("2024-01-01", "view"), ("2024-01-02", "login"), ("2024-01-01", "logout")]
for day, grp in groupby(events, key=lambda e: e[0]):
    print(day, [e[1] for e in grp])
for day, grp in groupby(sorted(events), key=lambda e: e[0]):
    print(day, len(list(grp)))
s = "aaabccdddd"
print([(k, len(list(g))) for k, g in groupby(s)])
print("".join(f"{k}{sum(1 for _ in g)}" for k, g in groupby(s)))
