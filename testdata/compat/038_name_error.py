total = 5
print(total)
print(totl)
