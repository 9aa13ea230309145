items = ["alpha", "beta", "gamma"]
print(*items, sep="\n")
print(*items, sep=", ", end=".\n")
print("a", "b", sep="")
print()
print(*range(5))
print(*[1, 2], *"xy", sep="|")
print("done", end="")
print("!")
