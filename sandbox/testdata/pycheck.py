"""Compare the sandbox's recorded outputs with CPython's.

    SANDBOX_DUMP=/tmp/dump.jsonl go test ./sandbox/ && python3 sandbox/testdata/pycheck.py /tmp/dump.jsonl
"""
import contextlib
import io
import json
import sys

bad = 0
for line in open(sys.argv[1]):
    case = json.loads(line)
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            exec(case["code"], {"__name__": "__main__"})
    except Exception as e:  # noqa: BLE001
        buf.write("EXCEPTION %r" % e)
    if buf.getvalue() != case["out"]:
        bad += 1
        print("MISMATCH:", case["code"])
        print("  sandbox:", repr(case["out"]))
        print("  cpython:", repr(buf.getvalue()))
print("checked; mismatches:", bad)
