def query(q, *, limit=10, **filters):
    parts = [f"q={q!r}", f"limit={limit}"]
    for k in sorted(filters):
        parts.append(f"{k}={filters[k]}")
    return " ".join(parts)
print(query("cats"))
print(query("dogs", limit=3, lang="en", year=2024))
opts = {"limit": 5, "site": "x.com"}
print(query("birds", **opts))
args = ["fish"]
print(query(*args, limit=1))
def total(*nums):
    return sum(nums)
print(total(), total(1, 2, 3), total(*range(5)))
