class Stats:
    def __init__(self):
        self.n = 0
        self.total = 0.0
        self.min = None
        self.max = None
    def add(self, x):
        self.n += 1
        self.total += x
        self.min = x if self.min is None else min(self.min, x)
        self.max = x if self.max is None else max(self.max, x)
        return self
    @property
    def mean(self):
        return self.total / self.n if self.n else 0.0
    def __repr__(self):
        return f"Stats(n={self.n}, mean={self.mean:.2f}, min={self.min}, max={self.max})"
    def __len__(self):
        return self.n
latencies = {"api": [120, 98, 143, 301], "db": [12, 15, 9], "cache": []}
stats = {k: Stats() for k in latencies}
for k, vals in latencies.items():
    for v in vals:
        stats[k].add(v)
for k, s in stats.items():
    print(k, s, len(s), bool(s))
print(Stats().add(1).add(2).add(3))
