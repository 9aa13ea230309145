tree = {"name": "root", "children": [
    {"name": "a", "children": [{"name": "a1", "children": []}, {"name": "a2", "children": []}]},
    {"name": "b", "children": [{"name": "b1", "children": [{"name": "b1x", "children": []}]}]},
]}

def depth(node):
    if not node["children"]:
        return 1
    return 1 + max(depth(c) for c in node["children"])

def walk(node, prefix=""):
    print(prefix + node["name"])
    for c in node["children"]:
        walk(c, prefix + "  ")

def leaves(node):
    if not node["children"]:
        return [node["name"]]
    out = []
    for c in node["children"]:
        out.extend(leaves(c))
    return out

walk(tree)
print(depth(tree), leaves(tree))
