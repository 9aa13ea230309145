from decimal import Decimal, ROUND_HALF_UP, getcontext
prices = ["19.99", "5.01", "0.10", "100.00"]
qty = [3, 7, 10, 1]
subtotal = sum(Decimal(p) * q for p, q in zip(prices, qty))
print(subtotal, type(subtotal).__name__)
tax = (subtotal * Decimal("0.0825")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
print(tax, subtotal + tax)
print(Decimal("0.1") + Decimal("0.2") == Decimal("0.3"), 0.1 + 0.2 == 0.3)
print(Decimal(10) / Decimal(3), round(Decimal("2.675"), 2), Decimal("1.10") * 2)
getcontext().prec = 6
print(Decimal(1) / Decimal(7), Decimal(2).sqrt())
print(f"{subtotal:,.2f}", str(Decimal("1E+3")), Decimal("3.14159").quantize(Decimal("0.001")))
