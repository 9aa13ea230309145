text = "aaa bbb ccc ddd eee"
pos = 0
found = []
while True:
    i = text.find(" ", pos)
    if i == -1:
        break
    found.append(i)
    pos = i + 1
print(found)
n = 27
steps = 0
while n != 1:
    n = n // 2 if n % 2 == 0 else 3 * n + 1
    steps += 1
print("collatz steps:", steps)
lo, hi = 0, 100
target = 37
guesses = 0
while lo <= hi:
    mid = (lo + hi) // 2
    guesses += 1
    if mid == target:
        break
    elif mid < target:
        lo = mid + 1
    else:
        hi = mid - 1
print(mid, guesses)
