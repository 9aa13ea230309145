"""CPython side of the sandbox benchmarks (run by bench_test.go).

usage: python3 bench.py DATAFILE CASE
Prints the best wall time in seconds of the case's workload over 3 runs
(reading the file is not timed). The workloads are the same code the Go
benchmarks run in the sandbox.
"""
import re
import sys
import time

text = open(sys.argv[1], encoding="utf-8").read()
case = sys.argv[2]


def loop():
    # A typical LLM-style loop: split, filter, count.
    lines = text.split("\n")
    n = 0
    for line in lines:
        if "ERROR" in line:
            n += 1
    return n


CASES = {
    "loop": loop,
    "re_prefixed": lambda: len(re.findall(r"magic number \d+", text)),
    "re_unprefixed": lambda: len(re.findall(r"[Mm]agic number", text)),
    "re_ignorecase": lambda: len(re.findall(r"(?i)magic number", text)),
    "re_literal": lambda: len(re.findall(r"magic number", text)),
    # Tokenizing into words (BenchmarkReWords, over 10 MB).
    "re_words": lambda: len(re.findall(r"\w+", text)),
    "re_lowerwords": lambda: len(re.findall(r"[a-z]+", text)),
    "find_literal": lambda: text.find("no such needle here"),
    # str methods with a needle whose first byte is common (BenchmarkStrSearch).
    "str_find": lambda: text.find("the magic number 1000"),
    "str_in": lambda: "the magic number 1000" in text,
    "str_index": lambda: text.index("2024-01-13 1500000 "),
    "str_count": lambda: text.count("the magic number 1"),
    "str_rfind": lambda: text.rfind("the magic number 1000"),
    "str_replace": lambda: text.replace("the magic number 1000", "x"),
}

best = None
for _ in range(3):
    t = time.perf_counter()
    CASES[case]()
    d = time.perf_counter() - t
    best = d if best is None else min(best, d)
print(best)
