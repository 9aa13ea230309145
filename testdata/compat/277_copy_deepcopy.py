import copy
orig = {"a": [1, 2], "b": {"c": 3}}
shallow = copy.copy(orig)
deep = copy.deepcopy(orig)
orig["a"].append(99)
orig["b"]["c"] = 0
print(shallow, deep)
lst = [[0] * 2 for _ in range(2)]
lst2 = [row[:] for row in lst]
lst[0][0] = 1
print(lst, lst2)
alias = orig
alias["new"] = 1
print("new" in orig, alias is orig, dict(orig) is orig, dict(orig) == orig)
