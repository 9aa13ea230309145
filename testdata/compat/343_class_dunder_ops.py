class Money:
    def __init__(self, cents, currency="USD"):
        self.cents = int(cents)
        self.currency = currency
    @classmethod
    def parse(cls, s):
        m = re.fullmatch(r"([A-Z]{3})?\s*\$?(\d+)(?:\.(\d{1,2}))?", s.strip())
        if not m:
            raise ValueError(f"cannot parse {s!r}")
        cur, whole, frac = m.groups()
        return cls(int(whole) * 100 + int((frac or "0").ljust(2, "0")), cur or "USD")
    def __add__(self, other):
        if self.currency != other.currency:
            raise TypeError("currency mismatch")
        return Money(self.cents + other.cents, self.currency)
    def __eq__(self, other):
        return isinstance(other, Money) and (self.cents, self.currency) == (other.cents, other.currency)
    def __lt__(self, other):
        return self.cents < other.cents
    def __repr__(self):
        return f"Money('{self.currency} {self.cents // 100}.{self.cents % 100:02d}')"
vals = [Money.parse(s) for s in ["$5", "12.5", "USD 0.99", "EUR 3"]]
print(vals)
print(vals[0] + vals[1], sorted(vals[:3]), max(vals[:3]))
print(Money(100) == Money.parse("$1.00"), Money(1) != Money(2))
for bad in ["abc", "1.234"]:
    try:
        Money.parse(bad)
    except ValueError as e:
        print(e)
try:
    vals[0] + vals[3]
except TypeError as e:
    print("TypeError:", e)
