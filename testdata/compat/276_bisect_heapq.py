import bisect, heapq
offsets = [0, 120, 250, 400, 610]
for pos in [0, 119, 120, 500, 700]:
    print(pos, bisect.bisect_right(offsets, pos) - 1, bisect.bisect_left(offsets, pos))
arr = [1, 3, 5]
bisect.insort(arr, 4)
print(arr)
scores = [(0.3, "c"), (0.9, "a"), (0.5, "b"), (0.7, "d")]
print(heapq.nlargest(2, scores), heapq.nsmallest(1, scores))
print(heapq.nlargest(2, [{"s": 1}, {"s": 5}, {"s": 3}], key=lambda d: d["s"]))
h = []
for s in [5, 1, 4, 2]:
    heapq.heappush(h, s)
print([heapq.heappop(h) for _ in range(len(h))])
h2 = [9, 2, 7]
heapq.heapify(h2)
print(h2[0], heapq.heappushpop(h2, 1), list(heapq.merge([1, 4], [2, 3])))
