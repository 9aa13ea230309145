from collections import deque
context = "a b c d e f g h i j".split()
window = deque(maxlen=3)
for w in context:
    window.append(w)
    if len(window) == 3:
        print(" ".join(window), end=" | ")
print()
print(window, list(window))
q = deque([1, 2, 3])
q.appendleft(0)
q.extend([4, 5])
print(q.popleft(), q.pop(), q)
q.rotate(2)
print(q)
q.rotate(-1)
print(q, len(q), q[0], q[-1])
print(deque(maxlen=2))
