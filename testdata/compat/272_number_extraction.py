context = "Revenue: $1,234,567.89 in 2023, up 12.5% from $1.1M. Costs were -45,000. Ratio 3/4."
nums = re.findall(r"-?\d[\d,]*\.?\d*", context)
print(nums)
clean = [float(n.replace(",", "")) for n in nums]
print(clean)
print(f"{max(clean):,.2f}", f"{sum(clean):.3e}")
money = re.findall(r"\$([\d,.]+)([MK]?)", context)
print(money)
mult = {"": 1, "K": 1_000, "M": 1_000_000}
print([float(v.replace(",", "")) * mult[s] for v, s in money])
pct = float(re.search(r"([\d.]+)%", context).group(1)) / 100
print(pct, f"{pct:.1%}")
years = [int(y) for y in re.findall(r"\b(19\d{2}|20\d{2})\b", context)]
print(years)
