def risky(kind):
    if kind == "key":
        return {}["k"]
    if kind == "idx":
        return [][0]
    if kind == "val":
        return int("no")
    if kind == "type":
        return 1 + "a"
    return "ok"
for k in ["key", "idx", "val", "type", "none"]:
    try:
        print(risky(k))
    except (KeyError, IndexError) as e:
        print("lookup", type(e).__name__, isinstance(e, LookupError), e)
    except ValueError as e:
        print("value", e.args)
    except Exception as e:
        print("other", e.__class__.__name__)
    else:
        print("no error")
def safe_int(s, default=-1):
    try:
        return int(s)
    except (TypeError, ValueError):
        return default
print([safe_int(x) for x in ["1", None, "x", 3.7]])
