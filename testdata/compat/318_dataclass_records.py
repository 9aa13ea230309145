from dataclasses import dataclass, field, asdict
from typing import List, Optional
@dataclass
class Paper:
    title: str
    year: int
    authors: List[str] = field(default_factory=list)
    citations: int = 0
    venue: Optional[str] = None
    @property
    def first_author(self):
        return self.authors[0] if self.authors else "?"
papers = [
    Paper("Attention Is All You Need", 2017, ["Vaswani", "Shazeer"], 90000, "NeurIPS"),
    Paper("BERT", 2019, ["Devlin"], 70000, "NAACL"),
    Paper("Untitled draft", 2024),
]
for p in sorted(papers, key=lambda p: p.citations, reverse=True):
    print(f"{p.year} {p.title[:20]:<20} {p.first_author:<8} {p.citations:>6}")
print(papers[1])
print(asdict(papers[2]))
print(papers[0] == Paper("Attention Is All You Need", 2017, ["Vaswani", "Shazeer"], 90000, "NeurIPS"))
