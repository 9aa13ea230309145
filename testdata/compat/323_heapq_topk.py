import heapq
docs = {"d1": 0.82, "d2": 0.15, "d3": 0.97, "d4": 0.82, "d5": 0.33, "d6": 0.61}
print(heapq.nlargest(3, docs, key=docs.get))
print(heapq.nsmallest(2, docs.items(), key=lambda kv: kv[1]))
heap = []
for doc, score in docs.items():
    heapq.heappush(heap, (-score, doc))
print([heapq.heappop(heap)[1] for _ in range(4)])
nums = [5, 1, 8, 3, 9, 2]
heapq.heapify(nums)
print(nums[0], len(nums), heapq.nlargest(2, nums))
top = []
for i, x in enumerate([4, 10, 3, 7, 12, 1]):
    if len(top) < 3:
        heapq.heappush(top, x)
    else:
        heapq.heappushpop(top, x)
print(sorted(top, reverse=True))
