print("tab:\tend")
print("newline:\\n stays literal")
print(r"raw \n \t \d+")
print("quote: \"double\" and 'single'")
print('it\'s')
print("unicode: \u00e9 \u2713 \U0001F600")
print("hex: \x41\x42")
print("""triple "quoted" with 'both'""")
print('''multi
line''')
path = "C:\\Users\\test"
print(path, len(path))
print(repr("\n"), repr("\\"), repr("'"), repr('"'))
s = "line1\nline2"
print(s.split("\n"), len(s))
print("a" "b" "c")
print(("long string "
       "continued"))
print(f"{'nested'} {'quotes'!r}")
