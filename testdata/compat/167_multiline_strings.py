report = """Summary
=======
Items: {n}
Status: {status}
"""
print(report.format(n=3, status="ok"))
sql = ("SELECT *"
       " FROM users"
       " WHERE id = 1")
print(sql)
poem = '''line one
    line two (indented)
line three'''
for i, line in enumerate(poem.splitlines(), 1):
    print(f"{i:02d}: {line}")
print(len(poem.splitlines()), poem.count("\n"))
s = "a\
b"
print(s)
