temps = [21.456, 19.02, 25.5, 18.75, 30.049, -2.5]
print(round(sum(temps) / len(temps), 1))
print([round(t) for t in temps])
print(round(max(temps) - min(temps), 2), abs(min(temps)))
deltas = [round(b - a, 2) for a, b in zip(temps, temps[1:])]
print(deltas)
print(max(deltas, key=abs), min(temps, key=lambda t: abs(t - 20)))
print(min([], default=None), max([5], default=0), min((), default="empty"))
print(round(0.125, 2), round(0.375, 2), round(2.675, 2), round(1e16), round(7, -1))
print(sum([0.1] * 10), sum([1, 2, 3], 10), sum([[1], [2]], []))
