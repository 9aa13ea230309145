print("a,b,c".split(",", 1), "a,b,c".rsplit(",", 1), ",a,".split(","), "".split(","), "".split())
print("  a  b  ".split(" "), "a\tb\nc".split(), "abc".split("b"))
print(re.split(r"\s*[,;]\s*", "a , b;c ;d"), re.split(r"(,)", "a,b"), re.split(r"x*", "axbc"))
print(re.split(r"\d", "a1b2c3", maxsplit=2))
print("one\n\ntwo\n".split("\n"), "one\n\ntwo\n".splitlines())
try:
    "abc".split("")
except ValueError as e:
    print("ValueError:", e)
