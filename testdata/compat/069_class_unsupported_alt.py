def make_account(owner, balance=0):
    return {"owner": owner, "balance": balance, "history": []}
def deposit(acct, amount):
    acct["balance"] += amount
    acct["history"].append(("deposit", amount))
def withdraw(acct, amount):
    if amount > acct["balance"]:
        return False
    acct["balance"] -= amount
    acct["history"].append(("withdraw", amount))
    return True
a = make_account("ann", 100)
deposit(a, 50)
print(withdraw(a, 500), withdraw(a, 30))
print(a)
print(len(a["history"]), a["balance"])
