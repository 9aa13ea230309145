state = {"calls": 0, "seen": []}
def visit(item):
    state["calls"] += 1
    if item not in state["seen"]:
        state["seen"].append(item)
for it in ["a", "b", "a", "c", "b"]:
    visit(it)
print(state)
stack = []
for tok in "3 4 + 2 *".split():
    if tok.isdigit():
        stack.append(int(tok))
    else:
        r, l = stack.pop(), stack.pop()
        stack.append(l + r if tok == "+" else l * r)
print(stack)
queue = [1]
order = []
while queue:
    n = queue.pop(0)
    order.append(n)
    if n < 8:
        queue.extend([n * 2, n * 2 + 1])
print(order)
