vals = [0, 1, "", "x", None, [], [0]]
print([v or "default" for v in vals])
print([v and "set" for v in vals])
print(None or 0 or "" or "last", 1 and 2 and 3, not [], not not "a")
x = None
name = x if x is not None else "anon"
print(name, x is None, x == None)
print(1 < 2 < 3, 1 < 3 < 2, 2 == 2.0 == True * 2)
print(True + True, sum([True, False, True]), any([]), all([]))
print("a" in "abc" and "z" not in "abc")
print(3 if [] else 4, [] == False, bool([]) == False)
