files = {
    "main.py": "import os\nprint('hi')\n",
    "util.py": "def helper():\n    return 42\n",
    "README.md": "# Project\nTODO: write docs\n",
    "config.yaml": "debug: true\n",
}
has_todo = any("TODO" in body for body in files.values())
all_nonempty = all(len(body) > 0 for body in files.values())
py_files = [name for name in files if name.endswith(".py")]
print(has_todo, all_nonempty, py_files)
print(any([]), all([]), any(x > 3 for x in [1, 2, 5]))
first_todo = next((n for n, b in files.items() if "TODO" in b), None)
print("first TODO in:", first_todo)
if not any(name.endswith(".json") for name in files):
    print("no json files")
exts = {name.rsplit(".", 1)[-1] for name in files}
print(sorted(exts))
