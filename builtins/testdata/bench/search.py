#!/usr/bin/env python3
"""CPython baseline for the search benchmarks in internal/pyre and builtins.

Builds the same 100 MB text as internal/benchtext (a 1 MB block of pseudo-English lines from the
same LCG, repeated 100 times) and times the same searches, counting every
match, in MB/s. Run: python3 builtins/testdata/bench/search.py
"""
import re
import time

WORDS = ("the of and to in is was for on that with as by at from this be are or an it his which but not were "
         "error warning info debug request response user server client value number magic Magic data time system file").split()
NEEDLE = "The Magic number is 4242 and the magic NUMBER is 17"
M64 = (1 << 64) - 1


def block():
    out, size, x, line = [], 0, 12345, 0
    while size < 1 << 20:
        if line % 2000 == 1999:
            s = NEEDLE
        else:
            x = (x * 6364136223846793005 + 1442695040888963407) & M64
            n = 4 + (x >> 33) % 12
            ws = []
            for _ in range(n):
                x = (x * 6364136223846793005 + 1442695040888963407) & M64
                ws.append(WORDS[(x >> 33) % len(WORDS)])
            s = " ".join(ws)
        out.append(s + "\n")
        size += len(s) + 1
        line += 1
    return "".join(out)


def bench(name, fn, text, reps=3):
    best = float("inf")
    n = None
    for _ in range(reps):
        t0 = time.perf_counter()
        n = fn(text)
        best = min(best, time.perf_counter() - t0)
    print(f"{name:<24} {best * 1e3:9.1f} ms {len(text) / best / 1e6:9.1f} MB/s {n:>8} matches")


def count_re(pattern):
    rx = re.compile(pattern, re.MULTILINE)
    return lambda text: sum(1 for _ in rx.finditer(text))


def main():
    text = block() * 100
    assert len(text) >= 100 << 20
    bench("MemoryScan", lambda t: t.find("\0"), text)
    bench("Literal", lambda t: t.count("magic number"), text)
    bench("LiteralRare", lambda t: t.count("number is 4242"), text)
    bench("Prefixed", count_re(r"magic number \d+"), text)
    bench("Class", count_re(r"[Mm]agic number"), text)
    bench("FoldCase", count_re(r"(?i)magic number"), text)
    bench("Alternate", count_re(r"magic number|NUMBER is"), text)
    bench("NoLiteral", count_re(r"\d{4}"), text)


if __name__ == "__main__":
    main()
