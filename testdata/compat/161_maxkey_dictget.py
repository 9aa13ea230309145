votes = ["red", "blue", "red", "green", "blue", "red", "yellow", "blue", "blue"]
tally = {}
for v in votes:
    tally[v] = tally.get(v, 0) + 1
winner = max(tally, key=tally.get)
loser = min(tally, key=tally.get)
print(tally)
print(f"winner: {winner} ({tally[winner]} votes), loser: {loser}")
print(sorted(tally, key=tally.get, reverse=True))
print(max(tally.values()), min(tally.items(), key=lambda kv: kv[1]))
print(max([], default=None), min([3, 1, 2], default=0), max("apple", "fig", key=len))
print(max([(2, "b"), (2, "a"), (1, "z")]))
