class ParseError(ValueError):
    pass
class EmptyInput(ParseError):
    def __init__(self, where):
        super().__init__(f"empty input at {where}")
        self.where = where
def parse(s, where):
    if not s:
        raise EmptyInput(where)
    if not s.isdigit():
        raise ParseError(f"not a number: {s!r}")
    return int(s)
for i, s in enumerate(["12", "", "x7"]):
    try:
        print(parse(s, i))
    except EmptyInput as e:
        print("empty:", e, e.where)
    except ValueError as e:
        print("bad:", e, type(e).__name__)
