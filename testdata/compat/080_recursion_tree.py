tree = {"name": "root", "children": [
    {"name": "a", "children": [{"name": "a1", "children": []}, {"name": "a2", "children": []}]},
    {"name": "b", "children": [{"name": "b1", "children": [{"name": "b1x", "children": []}]}]},
]}
def show(node, depth=0):
    print("  " * depth + node["name"])
    for c in node["children"]:
        show(c, depth + 1)
show(tree)
def count(node):
    return 1 + sum(count(c) for c in node["children"])
print(count(tree))
def leaves(node):
    if not node["children"]:
        return [node["name"]]
    out = []
    for c in node["children"]:
        out += leaves(c)
    return out
print(leaves(tree))
def find_path(node, target, path=()):
    path = path + (node["name"],)
    if node["name"] == target:
        return path
    for c in node["children"]:
        r = find_path(c, target, path)
        if r:
            return r
    return None
print(find_path(tree, "b1x"), find_path(tree, "zz"))
