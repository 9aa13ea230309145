results = []
try:
    results.append("start")
    value = {"a": 1}["b"]
    results.append("not reached")
except KeyError:
    results.append("keyerror")
except Exception:
    results.append("generic")
finally:
    results.append("cleanup")
print(results)
try:
    x = int("7")
except ValueError:
    x = None
print(x)
try:
    import json
    cfg = json.loads('{"debug": true}')
except Exception as e:
    cfg = {}
print(cfg)
try:
    1 / 0
except ArithmeticError as e:
    print("arith", type(e).__name__)
try:
    [][0]
except LookupError as e:
    print("lookup", e)
