count = 5
print("count is " + str(count))
print("count is " + count)
