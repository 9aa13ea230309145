prompt = """Answer the question using the context.
Context:
{ctx}
Question: {q}
Answer:"""
filled = prompt.format(ctx="The sky is blue.", q="What color is the sky?")
print(filled)
print(len(filled.splitlines()))
raw = r"C:\new\table\x"
print(raw, len(raw))
s = ("implicit "
     "concat "
     f"with {1 + 1}")
print(s)
print('single "double" inside', "double 'single' inside", 'esc\'aped')
print("""triple "quotes" inside""")
long = "word " * 3
print(repr(long), repr(long.rstrip()))
