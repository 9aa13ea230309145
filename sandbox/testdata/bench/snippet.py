"""CPython side of BenchmarkSnippets (snippet_bench_test.go).

usage: python3 snippet.py DATAFILE VAR SETUPFILE CODEFILE RUNS
Binds the data file's text to VAR, runs SETUPFILE's code (not timed), then
runs CODEFILE's code RUNS times in fresh copies of those globals and prints
the best CPU time (time.process_time) in seconds. The code is the same text the sandbox runs.
"""
import sys
import time

data, var, setup_file, code_file, runs = sys.argv[1:6]
with open(data, encoding="utf-8") as f:
    value = f.read()
with open(setup_file, encoding="utf-8") as f:
    setup = compile(f.read(), "setup", "exec")
with open(code_file, encoding="utf-8") as f:
    code = compile(f.read(), "snippet", "exec")

g = {var: value, "__name__": "__main__"}
exec(setup, g)
best = None
for _ in range(int(runs)):
    env = dict(g)
    t = time.process_time()
    exec(code, env)
    d = time.process_time() - t
    best = d if best is None else min(best, d)
print(best)
