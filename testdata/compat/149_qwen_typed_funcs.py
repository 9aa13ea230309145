from typing import List, Dict, Optional, Tuple

def parse_record(line: str) -> Optional[Dict[str, str]]:
    """Parse a 'key=value; key=value' record. Returns None for blank lines."""
    line = line.strip()
    if not line:
        return None
    out: Dict[str, str] = {}
    for part in line.split(";"):
        key, _, value = part.strip().partition("=")
        out[key] = value
    return out

def top_n(counts: Dict[str, int], n: int = 3) -> List[Tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]

raw = """name=alice; dept=eng; level=3

name=bob; dept=ops; level=2
name=carol; dept=eng; level=5
name=dan; dept=sales; level=1
name=erin; dept=eng; level=2
"""
records = [r for r in (parse_record(l) for l in raw.splitlines()) if r is not None]
print(len(records), "records")
dept_counts: Dict[str, int] = {}
for r in records:
    dept_counts[r["dept"]] = dept_counts.get(r["dept"], 0) + 1
print(top_n(dept_counts))
print(top_n(dept_counts, n=1))
levels = list(map(int, (r["level"] for r in records)))
print(levels, sum(levels) / len(levels))
