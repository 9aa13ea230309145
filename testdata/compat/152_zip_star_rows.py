rows = [
    ("region", "q1", "q2", "q3"),
    ("north", "1,200", "1,350", "980"),
    ("south", "870", "910", "1,020"),
    ("east", "2,010", "1,990", "2,300"),
]
header, *body = rows
cols = list(zip(*body))
print(cols[0])
for name, col in zip(header[1:], cols[1:]):
    nums = [int(x.replace(",", "")) for x in col]
    print(f"{name}: total={sum(nums):,} max={max(nums)} min={min(nums)}")
totals = {r[0]: sum(int(v.replace(",", "")) for v in r[1:]) for r in body}
best = max(totals, key=totals.get)
print(best, totals[best])
print(list(zip(*[[1, 2, 3], [4, 5, 6]])))
