import textwrap
para = ("Recursive language models let a root model inspect a long context through code, "
        "issuing sub-queries over chunks and combining the answers into a final response.")
print(textwrap.fill(para, width=40))
print(textwrap.wrap(para, 30)[:2])
print(textwrap.shorten(para, width=50, placeholder=" [...]"))
block = """
    def f():
        return 1
"""
print(textwrap.dedent(block).strip())
print(textwrap.indent("a\nb", "  > "))
title = "Summary"
print(f"{title:=^30}")
print("\n".join(f"{i:>2}) {w}" for i, w in enumerate(para.split()[:3], 1)))
