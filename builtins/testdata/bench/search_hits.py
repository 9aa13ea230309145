#!/usr/bin/env python3
"""CPython equivalent of one search() call that returns many hits.

Usage: search_hits.py TEXT_FILE PATTERN RUNS

Builds what rlm's search(text, PATTERN, max_results=None) returns for a
literal: a list of dicts {line, offset, match, preview} from re.finditer,
with a running line count and a preview of the line around each match (up
to 60 characters on each side, "..." where cut). Prints the number of hits
and the best CPU time (time.process_time) of RUNS runs, in seconds.
"""
import re
import sys
import time

CONTEXT = 60


def search(text, pattern):
    rx = re.compile(re.escape(pattern))
    out = []
    line, counted = 1, 0
    for m in rx.finditer(text):
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
    return out


def main():
    path, pattern, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(path) as f:
        text = f.read()
    best, n = float("inf"), 0
    for _ in range(runs):
        t0 = time.process_time()
        hits = search(text, pattern)
        best = min(best, time.process_time() - t0)
        n = len(hits)
        del hits
    print(n, best)


if __name__ == "__main__":
    main()
