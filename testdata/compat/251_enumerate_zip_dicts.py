names = ["ann", "bo", "cy"]
ages = [30, 25, 35]
people = [{"name": n, "age": a} for n, a in zip(names, ages)]
for i, p in enumerate(people):
    print(i, p)
lookup = {p["name"]: i for i, p in enumerate(people)}
print(lookup)
oldest = sorted(people, key=lambda p: p["age"], reverse=True)
print([p["name"] for p in oldest])
print(list(enumerate("ab", 10)))
print(list(zip(range(3), "abc", [True, False, None])))
avg = sum(p["age"] for p in people) / len(people)
print(f"average age {avg:.2f}", f"{avg:.0f}")
