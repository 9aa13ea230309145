# Typical exploration code: look, search, count, chunk, finish.
print(f"{len(notes):,} chars, {len(notes.splitlines())} lines")
print(peek(notes, 0, 22))
for r in search(notes, r"\d{2,}", regex=True, max_results=3):
    print(r["line"], r["match"])
hits = search(messages, "magic")
print(hits)
users = {}
for m in messages:
    users[m["user"]] = users.get(m["user"], 0) + 1
print(sorted(users.items()))
print(len(chunk(notes, 60)), "chunks")
SUBMIT(answer=search(notes, "magic number")[0]["preview"], users=len(users))
