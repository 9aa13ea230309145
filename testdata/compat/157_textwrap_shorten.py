import textwrap

doc = ("Recursive language models keep the long context outside the prompt and let the "
       "model explore it with code, calling sub-models on the pieces that matter.")
print(textwrap.shorten(doc, width=60))
print(textwrap.shorten(doc, width=40, placeholder="..."))
for line in textwrap.wrap(doc, width=30):
    print("|" + line.ljust(30) + "|")
print(textwrap.fill("short text", width=50))
print(textwrap.dedent("""
    indented
      more
    back
""").strip())
print(textwrap.indent("a\nb", "> "))
