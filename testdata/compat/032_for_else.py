def is_prime(n):
    if n < 2:
        return False
    for d in range(2, int(n ** 0.5) + 1):
        if n % d == 0:
            break
    else:
        return True
    return False
print([n for n in range(30) if is_prime(n)])
needle = "z"
for ch in "abc":
    if ch == needle:
        print("found")
        break
else:
    print("not found")
k = 0
while k < 3:
    k += 1
else:
    print("while done", k)
