files = {
    "src/main.py": "import os\nprint('hi')\n# TODO: refactor\n",
    "src/util.py": "def helper():\n    pass  # TODO remove\n",
    "README.md": "# Project\nSome docs.\n",
    "tests/test_main.py": "def test():\n    assert True\n",
}
print(len(files), "files")
for path, content in files.items():
    n = content.count("\n")
    print(f"{path:<22} {n:>3} lines {len(content):>4} chars")
todos = {p: c.count("TODO") for p, c in files.items() if "TODO" in c}
print(todos)
py = [p for p in files if p.endswith(".py")]
print(sorted(py))
by_dir = {}
for p in files:
    d = p.split("/")[0] if "/" in p else "."
    by_dir.setdefault(d, []).append(p)
print(by_dir)
print(max(files, key=lambda p: len(files[p])))
