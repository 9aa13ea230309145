results = {"a": [1, 2]}
results["a"].append(3)
print(results)
results["a"].add(4)
