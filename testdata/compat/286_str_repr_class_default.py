class Plain:
    pass
p = Plain()
p.value = 3
print(p.value, hasattr(p, "value"), hasattr(p, "other"))
print(type(p).__name__, Plain.__name__)
class WithStr:
    def __str__(self):
        return "custom str"
w = WithStr()
print(w, str(w), f"{w}", [str(w)])
print(vars(p))
setattr(p, "z", 1)
print(getattr(p, "z"), p.__dict__)
try:
    p.missing
except AttributeError as e:
    print("AttributeError:", e)
