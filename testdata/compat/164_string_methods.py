names = ["alice smith", "BOB JONES", "carol o'neil", "dan"]
for n in names:
    print(n.title().ljust(14) + "|" + n.upper().rjust(14) + "|" + n.center(14, "*"))
print("42".isdigit(), "4.2".isdigit(), "abc".isalpha(), "abc123".isalnum(), "   ".isspace())
print("Hello World".swapcase(), "hello".capitalize(), "x".zfill(4), "-7".zfill(4))
print("a-b-c".replace("-", "+", 1), "banana".count("an"), "banana".find("z"), "banana".rfind("a"))
print("Title Case Words".istitle(), "lower".islower(), "UP".isupper())
print("tab\tsep".expandtabs(4), repr("line\n"), "MiXeD".casefold())
print("report.final.pdf".endswith((".pdf", ".doc")), "https://x".startswith("http"))
