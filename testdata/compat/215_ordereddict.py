from collections import OrderedDict
od = OrderedDict()
od["b"] = 2
od["a"] = 1
od["c"] = 3
print(od)
od.move_to_end("b")
print(list(od.keys()))
od.move_to_end("c", last=False)
print(list(od))
print(od.popitem(), od.popitem(last=False), od)
cache = OrderedDict()
for k in ["x", "y", "x", "z", "w"]:
    if k in cache:
        cache.move_to_end(k)
    cache[k] = True
    if len(cache) > 3:
        cache.popitem(last=False)
print(list(cache))
