from dataclasses import dataclass, asdict
@dataclass(frozen=True, order=True)
class Span:
    start: int
    end: int
    def length(self):
        return self.end - self.start

spans = [Span(10, 20), Span(2, 5), Span(10, 12)]
print(sorted(spans))
print(spans[0].length(), asdict(spans[1]))
try:
    spans[0].start = 3
except Exception as e:
    print(type(e).__name__, e)
print(Span(1, 2) < Span(1, 3), hash(Span(1, 2)) == hash(Span(1, 2)))
print(len({Span(1, 2), Span(1, 2), Span(3, 4)}))
