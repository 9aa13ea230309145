def summarize_numbers(nums, label="values"):
    """Return a one-line summary."""
    if not nums:
        return f"{label}: empty"
    avg = sum(nums) / len(nums)
    return f"{label}: n={len(nums)} min={min(nums)} max={max(nums)} avg={avg:.2f}"
print(summarize_numbers([4, 8, 15, 16, 23, 42]))
print(summarize_numbers([], label="nothing"))
def top_k(d, k=3, *, reverse=True):
    return sorted(d.items(), key=lambda kv: kv[1], reverse=reverse)[:k]
print(top_k({"a": 5, "b": 9, "c": 1, "d": 7}))
print(top_k({"a": 5, "b": 9, "c": 1}, k=2, reverse=False))
def stats(*args, **kwargs):
    return len(args), sorted(kwargs)
print(stats(1, 2, 3, x=1, y=2))
def apply(fn, values):
    return [fn(v) for v in values]
print(apply(lambda v: v ** 2, [1, 2, 3]))
def make_counter():
    counts = {"n": 0}
    def inc():
        counts["n"] += 1
        return counts["n"]
    return inc
c = make_counter()
c(); c()
print(c())
