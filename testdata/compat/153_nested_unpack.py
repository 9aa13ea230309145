inventory = {
    "apples": (12, 0.5),
    "pears": (0, 0.75),
    "kiwis": (30, 0.2),
}
for name, (qty, price) in inventory.items():
    print(f"{name:>8}: {qty:3d} x ${price:.2f} = ${qty * price:6.2f}")

points = [(1, (2, 3)), (4, (5, 6))]
for i, (x, (y, z)) in enumerate(points):
    print(i, x + y + z)

for idx, (k, v) in enumerate(sorted(inventory.items()), start=1):
    print(idx, k, v[0])
(a, b), c = (1, 2), 3
print(a, b, c)
first, *_, last = "alpha beta gamma delta".split()
print(first, last)
