# An offline exploration of a changelog and a folder of notes with rlm's
# helpers (no model: run it with ./explore.sh, or
#   rlm exec --var changelog=CHANGELOG.md --var notes=notes explore.py).

show_vars()

# outline: a survey of many documents (here the dict path -> text of notes/).
print(outline(notes))

# search: every release heading, with its line number.
releases = search(changelog, r"^## (v\d+\.\d+\.\d+) \((\d{4}-\d\d-\d\d)\)", regex=True, max_results=50)
for r in releases:
    print("release", r["groups"][0], "on", r["groups"][1], "at line", r["line"])

# peek: the text of the newest release, from its heading to the next one.
lines = changelog.splitlines()
first, second = releases[0]["line"], releases[1]["line"]
print("\n".join(peek(lines, first - 1, second - 1)))

# search a dict of documents: which notes mention the crash of issue 212?
for hit in search(notes, "212"):
    print("mentioned in", hit["key"])

# Plain Python works too: count the fixes per release.
fixes = {}
current = None
in_fixed = False
for line in lines:
    if line.startswith("## v"):
        current = line.split()[1]
        fixes[current] = 0
    elif line.startswith("### "):
        in_fixed = line == "### Fixed"
    elif in_fixed and line.startswith("- ") and current:
        fixes[current] += 1
print("fixes per release:", fixes)
