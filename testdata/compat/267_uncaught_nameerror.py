results = [1, 2, 3]
print(len(results))
print(reslts)
