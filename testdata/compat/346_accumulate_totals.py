transactions = [
    {"date": "2024-01-01", "type": "deposit", "amount": "1000.00"},
    {"date": "2024-01-05", "type": "withdrawal", "amount": "250.50"},
    {"date": "2024-01-10", "type": "deposit", "amount": "75.25"},
    {"date": "2024-01-12", "type": "fee", "amount": "2.00"},
    {"date": "2024-01-15", "type": "withdrawal", "amount": "1000.00"},
]
balance = 0.0
history = []
for t in transactions:
    amt = float(t["amount"])
    balance += amt if t["type"] == "deposit" else -amt
    history.append((t["date"], round(balance, 2)))
print(history)
print(f"final balance: {balance:,.2f}", "OVERDRAWN" if balance < 0 else "ok")
by_type = {}
for t in transactions:
    by_type[t["type"]] = round(by_type.get(t["type"], 0) + float(t["amount"]), 2)
print(by_type)
print(min(history, key=lambda h: h[1]), sum(1 for h in history if h[1] < 100))
