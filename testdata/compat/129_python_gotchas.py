funcs = [lambda: i for i in range(3)]
print([f() for f in funcs])
funcs2 = [lambda i=i: i for i in range(3)]
print([f() for f in funcs2])
def append_to(x, acc=[]):
    acc.append(x)
    return acc
print(append_to(1), append_to(2))
a = [1, 2]
b = a
b.append(3)
print(a, a is b)
c = a[:]
c.append(4)
print(a, c)
grid = [[0] * 2] * 2
grid[0][0] = 1
print(grid)
import copy
d = {"k": [1]}
e = copy.deepcopy(d)
e["k"].append(2)
print(d, e)
print(0.1 + 0.2 == 0.3, round(0.1 + 0.2, 10) == 0.3)
print(bool("False"), bool(""), [] == False, not [])
