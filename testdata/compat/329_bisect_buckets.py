import bisect
breakpoints = [60, 70, 80, 90]
grades = "FDCBA"
def grade(score):
    return grades[bisect.bisect(breakpoints, score)]
scores = [33, 99, 77, 70, 89, 90, 100, 60]
print([grade(s) for s in scores])
sorted_list = []
for s in scores:
    bisect.insort(sorted_list, s)
print(sorted_list)
print(bisect.bisect_left(sorted_list, 70), bisect.bisect_right(sorted_list, 70))
timestamps = [100, 200, 300, 400, 500]
lo = bisect.bisect_left(timestamps, 150)
hi = bisect.bisect_right(timestamps, 420)
print(timestamps[lo:hi])
