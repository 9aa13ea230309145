raw_values = ["12", "3.5", "n/a", "", "1,024", "7", "-4", "1e3", "abc"]
parsed = []
failures = []
for v in raw_values:
    try:
        parsed.append(int(v.replace(",", "")))
    except ValueError:
        try:
            parsed.append(float(v))
        except ValueError as e:
            failures.append((v, str(e)))
            continue
print(parsed)
for v, msg in failures:
    print(f"could not parse {v!r}: {msg}")
print(round(sum(parsed), 1))
