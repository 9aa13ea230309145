import textwrap
context = "Recursive language models let a root model write code that inspects a long context, calls sub-models over slices of it, and aggregates their answers into a final result."
print(textwrap.fill(context, width=40))
print(textwrap.wrap(context, 30)[:3])
print(textwrap.shorten(context, width=50, placeholder=" [...]"))
print(textwrap.indent("a\nb\n\nc", "> "))
block = """
    def f():
        return 1
"""
print(textwrap.dedent(block))
print(textwrap.fill("short", 20))
