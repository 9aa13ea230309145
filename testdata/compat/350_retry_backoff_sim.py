attempts_log = []
class TransientError(Exception):
    pass
def flaky(call_no):
    if call_no < 3:
        raise TransientError(f"try {call_no} failed")
    return {"status": "ok", "calls": call_no}
def with_retry(fn, retries=5, base=0.5):
    delay = base
    for attempt in range(1, retries + 1):
        try:
            return fn(attempt)
        except TransientError as e:
            attempts_log.append((attempt, str(e), delay))
            delay = min(delay * 2, 4)
    raise RuntimeError("gave up")
print(with_retry(flaky))
print(attempts_log)
try:
    with_retry(lambda n: 1 / 0)
except ZeroDivisionError as e:
    print("not retried:", e)
try:
    with_retry(lambda n: (_ for _ in ()).throw(TransientError("always")), retries=2)
except RuntimeError as e:
    print("RuntimeError:", e, len(attempts_log))
