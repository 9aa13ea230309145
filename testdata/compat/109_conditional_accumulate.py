transactions = [
    {"type": "credit", "amount": 100.0, "tag": "salary"},
    {"type": "debit", "amount": 20.5, "tag": "food"},
    {"type": "debit", "amount": 45.25, "tag": "rent"},
    {"type": "credit", "amount": 12.0, "tag": "refund"},
    {"type": "debit", "amount": 8.75, "tag": "food"},
]
balance = 0.0
spent = {}
for t in transactions:
    if t["type"] == "credit":
        balance += t["amount"]
    else:
        balance -= t["amount"]
        spent[t["tag"]] = spent.get(t["tag"], 0) + t["amount"]
print(f"balance: {balance:.2f}")
print(spent)
biggest = max(spent, key=spent.get)
print(f"biggest spend: {biggest} ({spent[biggest]:.2f}, {spent[biggest] / sum(spent.values()):.1%})")
credits = [t for t in transactions if t["type"] == "credit"]
print(len(credits), sum(t["amount"] for t in credits))
