data = [{"id": i, "score": (i * 37) % 11 / 10, "tags": ["x"] * (i % 3)} for i in range(8)]
top = sorted(data, key=lambda d: (-d["score"], d["id"]))[:3]
print([(d["id"], d["score"]) for d in top])
print({d["id"]: len(d["tags"]) for d in data if d["tags"]})
from collections import Counter, defaultdict, OrderedDict
tag_counts = Counter(t for d in data for t in d["tags"])
print(tag_counts, tag_counts.most_common(), list(tag_counts.items()))
groups = defaultdict(list)
for d in data:
    groups[round(d["score"])].append(d["id"])
print(sorted(groups.items()), dict(groups).keys())
buckets = {k: v for k, v in sorted(groups.items(), key=lambda kv: -len(kv[1]))}
print(buckets, list(buckets)[0])
print(f"{'id':>4} | {'score':^7} | tags")
for d in data[:3]:
    print(f"{d['id']:>4} | {d['score']:^7.2f} | {','.join(d['tags']) or '-'}")
nested = [[1, [2, 3]], [4, [5, [6]]]]
def flatten(x):
    out = []
    for e in x:
        if isinstance(e, list):
            out.extend(flatten(e))
        else:
            out.append(e)
    return out
print(flatten(nested), sum(flatten(nested)))
s = set()
s |= {1, 2}
s &= {2, 3}
print(s, {1, 2} ^ {2, 3}, {1, 2} <= {1, 2, 3}, frozenset([1]) == {1})
x = y = 0
x += 5; y -= 2
a, *rest = [1, 2, 3]
print(x, y, a, rest, [*rest, 4], {**{"a": 1}, "b": 2})
print(max(enumerate([3, 9, 2]), key=lambda t: t[1]), list(zip(*[(1, "a"), (2, "b")])))
print(str(123).zfill(6), "{:08.3f}".format(-3.14159), "{:+,}".format(1234567), "{:e}".format(0.0001234))
print(1_000_000, 0x1F, 0o17, 0b101, 7 // -2, -7 % 2, 2 ** -2, abs(-0.0), round(0.125, 2), round(0.375, 2))
