lines = """ts=1 lvl=INFO msg=start
ts=2 lvl=DEBUG msg=tick
ts=3 lvl=ERROR msg=disk full
ts=4 lvl=INFO msg=retry
ts=5 lvl=ERROR msg=timeout
ts=6 lvl=INFO msg=done""".splitlines()
def parse(lines):
    for line in lines:
        ts, lvl, msg = line.split(" ", 2)
        yield int(ts[3:]), lvl[4:], msg[4:]
def only(level, recs):
    return (r for r in recs if r[1] == level)
def numbered(recs, start=1):
    for i, r in enumerate(recs, start):
        yield f"{i}. [{r[0]}] {r[2]}"
for line in numbered(only("ERROR", parse(lines))):
    print(line)
gen = parse(lines)
print(next(gen), next(gen)[1])
print(sum(1 for _ in gen))
print(max(parse(lines), key=lambda r: len(r[2])))
print(list(zip(*[(r[0], r[1]) for r in parse(lines)]))[1][:3])
