chunks = ["a" * 10, "b" * 10]
assert len(chunks) == 2, "expected two chunks"
assert all(len(c) == 10 for c in chunks)
try:
    assert len(chunks) == 3, f"got {len(chunks)} chunks"
except AssertionError as e:
    print("AssertionError:", e)
try:
    assert False
except AssertionError as e:
    print("empty:", repr(e), str(e) == "")
assert chunks, "empty"
print("done")
