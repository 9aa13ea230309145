a = set("mississippi")
b = {"s", "p", "x"}
print(sorted(a), sorted(a & b), sorted(a | b), sorted(a - b), sorted(a ^ b))
print(a.issuperset({"m"}), {"m"} <= a, a.isdisjoint({"z"}))
a.add("z"); a.discard("q"); a.remove("m")
print(sorted(a))
try:
    a.remove("nope")
except KeyError as e:
    print("KeyError", e)
fs = frozenset([1, 2])
print(fs, {fs: "ok"}[frozenset([2, 1])])
print(set(), {1, 2} == {2, 1}, len(set([1, 1, 2])))
docs = {"d1": {"x", "y"}, "d2": {"y", "z"}}
print(sorted(set.intersection(*docs.values())), sorted(set().union(*docs.values())))
