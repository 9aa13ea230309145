class ParseError(Exception):
    pass
class FieldError(ParseError):
    def __init__(self, field, msg):
        super().__init__(f"{field}: {msg}")
        self.field = field

def parse(rec):
    if "id" not in rec:
        raise FieldError("id", "missing")
    if not isinstance(rec["id"], int):
        raise ParseError(f"bad id {rec['id']!r}")
    return rec["id"]

for rec in [{"id": 1}, {}, {"id": "x"}]:
    try:
        print(parse(rec))
    except FieldError as e:
        print("field error:", e, e.field, e.args)
    except ParseError as e:
        print("parse error:", e, repr(e))
try:
    raise ValueError("bad value", 42)
except ValueError as e:
    print(e, e.args)
try:
    try:
        1 / 0
    except ZeroDivisionError as e:
        raise RuntimeError("wrapped") from e
except RuntimeError as e:
    print(e, type(e.__cause__).__name__)
finally:
    print("finally ran")
