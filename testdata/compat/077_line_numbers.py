context = """def foo():
    return 1

def bar(x):
    # TODO: handle None
    return x * 2

class Baz:
    pass
"""
for n, line in enumerate(context.splitlines(), start=1):
    if line.strip().startswith(("def ", "class ")):
        name = line.split()[1].split("(")[0].rstrip(":")
        print(f"{n:>3}: {name}")
todo = [(n, l.strip()) for n, l in enumerate(context.split("\n"), 1) if "TODO" in l]
print(todo)
blank = sum(1 for l in context.splitlines() if not l.strip())
print("blank lines:", blank)
