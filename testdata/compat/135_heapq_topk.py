import heapq
scores = {"a": 0.3, "b": 0.9, "c": 0.5, "d": 0.7, "e": 0.1}
print(heapq.nlargest(3, scores, key=scores.get))
print(heapq.nsmallest(2, scores.items(), key=lambda kv: kv[1]))
h = []
for name, s in scores.items():
    heapq.heappush(h, (s, name))
print([heapq.heappop(h)[1] for _ in range(3)])
nums = [5, 1, 8, 3]
heapq.heapify(nums)
print(nums[0], sorted(nums))
