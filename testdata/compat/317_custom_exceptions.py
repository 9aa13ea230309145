class ParseError(Exception):
    def __init__(self, line_no, msg):
        super().__init__(f"line {line_no}: {msg}")
        self.line_no = line_no
class MissingField(ParseError):
    pass
def parse_record(n, line):
    parts = [p.strip() for p in line.split("|")]
    if len(parts) != 3:
        raise ParseError(n, f"expected 3 fields, got {len(parts)}")
    name, age, email = parts
    if not email:
        raise MissingField(n, "email missing")
    return {"name": name, "age": int(age), "email": email}
lines = ["ann | 30 | ann@x.org", "bob | 41", "cy | 22 | ", "dee | old | d@x.org"]
for i, line in enumerate(lines, 1):
    try:
        print(parse_record(i, line))
    except MissingField as e:
        print("missing:", e, e.line_no)
    except ParseError as e:
        print("parse:", e, type(e).__name__)
    except ValueError as e:
        print("value:", e)
print(issubclass(MissingField, ParseError), isinstance(MissingField(1, "x"), Exception))
