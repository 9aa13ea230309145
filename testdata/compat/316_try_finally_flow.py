log = []
def process(item):
    try:
        log.append(f"start {item}")
        if item == "skip":
            return "skipped"
        value = 100 // int(item)
    except ZeroDivisionError:
        log.append("div0")
        return "inf"
    except ValueError as e:
        log.append(f"bad: {e}")
        raise
    else:
        log.append("ok")
        return value
    finally:
        log.append(f"end {item}")
results = []
for it in ["5", "skip", "0", "x", "3"]:
    try:
        results.append(process(it))
    except ValueError:
        results.append("error")
print(results)
print(log)
