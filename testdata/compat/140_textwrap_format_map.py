import textwrap
text = "The quick brown fox jumps over the lazy dog. " * 3
print(textwrap.shorten(text, width=40))
for line in textwrap.wrap(text, width=30):
    print(line)
print(textwrap.fill("a b c d e f", width=5))
print(textwrap.dedent("    x\n      y\n").rstrip())
template = "{name} has {n} items"
print(template.format_map({"name": "cart", "n": 3}))
