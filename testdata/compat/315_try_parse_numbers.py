raw = ["42", " 3.14 ", "1e3", "-7", "abc", "", "1,234", "0x1F", "12abc", None, "inf", "NaN"]
def to_number(s):
    if s is None:
        raise TypeError("no value")
    s = s.strip()
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return int(s, 16) if s.lower().startswith("0x") else None
out = []
for r in raw:
    try:
        out.append(to_number(r))
    except TypeError as e:
        out.append(f"<{e}>")
print(out)
nums = [x for x in out if isinstance(x, (int, float)) and x == x]
print(nums, sum(n for n in nums if abs(n) != float("inf")))
