from enum import Enum
class Status(Enum):
    OPEN = "open"
    CLOSED = "closed"
    PENDING = "pending"
tickets = [("T1", "open"), ("T2", "closed"), ("T3", "pending"), ("T4", "open")]
parsed = [(t, Status(s)) for t, s in tickets]
print(parsed[0][1], parsed[0][1].name, parsed[0][1].value)
print([t for t, s in parsed if s is Status.OPEN])
print(Status["CLOSED"], Status.PENDING == Status("pending"), len(Status))
print([s.name for s in Status])
try:
    Status("unknown")
except ValueError as e:
    print("ValueError:", e)
counts = {s.value: sum(1 for _, x in parsed if x == s) for s in Status}
print(counts)
