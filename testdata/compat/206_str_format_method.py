tmpl = "{0} has {1} items; {0} is {status}"
print(tmpl.format("cart", 3, status="open"))
print("{:>8}|{:<8}|{:^8}".format("r", "l", "c"))
print("{name:10} {score:6.2f}".format(name="bob", score=9.5))
print("{:,}".format(10**9), "{:.3%}".format(0.98765))
d = {"a": 1, "b": [10, 20]}
print("{d[a]} {d[b][1]}".format(d=d))
print("{0[0]}-{0[1]}".format(("x", "y")))
print("{{literal}} {}".format(5))
print("{!r:>10}".format("q"))
print("Result: {}".format(None))
