from collections import deque
stream = [3, 8, 2, 9, 4, 7, 1, 6]
window = deque(maxlen=3)
avgs = []
for x in stream:
    window.append(x)
    if len(window) == window.maxlen:
        avgs.append(round(sum(window) / len(window), 2))
print(avgs)
print(window, list(window))
q = deque(["a", "b"])
q.appendleft("z"); q.extend(["c", "d"]); q.rotate(2)
print(q, q.popleft(), q.pop(), len(q))
recent = deque(maxlen=2)
for line in "first\nsecond\nthird\nfourth".splitlines():
    recent.append(line)
print("last two:", " / ".join(recent))
