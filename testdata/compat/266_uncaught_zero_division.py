scores = {"a": [1, 2], "b": []}
for k, v in scores.items():
    print(k, sum(v) / len(v))
