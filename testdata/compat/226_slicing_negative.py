context = "0123456789abcdef"
print(context[::-1], context[-4:], context[:-12], context[::3], context[-1:-6:-2])
print(context[10:2:-3], context[100:], repr(context[5:2]))
lst = list(range(10))
print(lst[::-2], lst[-3::-1], lst[1:-1:4])
lst[2:5] = ["x"]
print(lst)
del lst[::3]
print(lst)
lines = context.split("a")
print(lines[-1], lines[0][-3:])
print("abc"[-10:10], (1, 2, 3)[::-1])
s = slice(1, None, 2)
print(context[s], lst[s])
