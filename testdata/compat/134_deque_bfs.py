from collections import deque
graph = {"a": ["b", "c"], "b": ["d"], "c": ["d", "e"], "d": ["f"], "e": ["f"], "f": []}
def bfs(start, goal):
    q = deque([(start, [start])])
    seen = {start}
    while q:
        node, path = q.popleft()
        if node == goal:
            return path
        for nxt in graph[node]:
            if nxt not in seen:
                seen.add(nxt)
                q.append((nxt, path + [nxt]))
    return None
print(bfs("a", "f"), bfs("f", "a"))
window = deque(maxlen=3)
for i in range(6):
    window.append(i)
print(list(window), len(window))
d = deque([1, 2, 3])
d.appendleft(0)
d.rotate(1)
print(list(d), d.pop(), d[0])
