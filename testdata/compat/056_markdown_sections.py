doc = """# Title
Intro text.
## Installation
Run the installer.
Then restart.
## Usage
Call the API.
### Advanced
Tune the knobs.
## FAQ
Nothing yet."""
sections = []
current = None
for line in doc.splitlines():
    if line.startswith("#"):
        level = len(line) - len(line.lstrip("#"))
        current = {"title": line.lstrip("#").strip(), "level": level, "lines": []}
        sections.append(current)
    elif current is not None:
        current["lines"].append(line)
for s in sections:
    indent = "  " * (s["level"] - 1)
    print(f"{indent}- {s['title']} ({len(s['lines'])} lines)")
toc = [s["title"] for s in sections if s["level"] == 2]
print(toc)
print(next(s for s in sections if s["title"] == "Usage")["lines"])
