#!/usr/bin/env python3
"""CPython equivalent of one search() call that returns many hits.

Usage: search_hits.py TEXT_FILE PATTERN RUNS [MAX_RESULTS]

Builds what rlm's search(text, PATTERN, max_results=None) returns for a
literal: a list of dicts {line, offset, match, preview} from re.finditer,
with a running line count and a preview of the line around each match (up
to 60 characters on each side, "..." where cut). With MAX_RESULTS, as
search(text, PATTERN, max_results=MAX_RESULTS): the first MAX_RESULTS
dicts, the last with "more", the count of the matches past them (up to
100,000). Prints the number of hits and the best CPU time
(time.process_time) of RUNS runs, in seconds.
"""
import re
import sys
import time

CONTEXT = 60
MAX_MORE = 100_000


def search(text, pattern, limit=None):
    rx = re.compile(re.escape(pattern))
    out = []
    line, counted = 1, 0
    more = 0
    for m in rx.finditer(text):
        if limit is not None and len(out) >= limit:
            more += 1
            if more >= MAX_MORE:
                break
            continue
        start, end = m.span()
        line += text.count("\n", counted, start)
        counted = start
        ls = text.rfind("\n", 0, start) + 1
        le = text.find("\n", end)
        if le < 0:
            le = len(text)
        lo, hi = max(ls, start - CONTEXT), min(le, end + CONTEXT)
        preview = ("..." if lo > ls else "") + text[lo:hi] + ("..." if hi < le else "")
        out.append({"line": line, "offset": start, "match": m.group(), "preview": preview})
    if more:
        out[-1]["more"] = more
    return out


def main():
    path, pattern, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else None
    with open(path) as f:
        text = f.read()
    best, n = float("inf"), 0
    for _ in range(runs):
        t0 = time.process_time()
        hits = search(text, pattern, limit)
        best = min(best, time.process_time() - t0)
        n = len(hits)
        del hits
    print(n, best)


if __name__ == "__main__":
    main()
