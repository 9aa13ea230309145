xs = [1, 2, 3]
assert len(xs) == 3, "length mismatch"
assert all(x > 0 for x in xs)
print("assertions passed")
assert xs[0] == 5, f"first element is {xs[0]}"
