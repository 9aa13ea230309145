total = 0
for i in range(5):
    total += i
print(total)
total = "reset"
print(total)
results = []
def record(x):
    results.append(x)
    return len(results)
record("a")
record("b")
print(results)
config = {"debug": False}
def enable():
    config["debug"] = True
enable()
print(config)
counter = 0
if counter == 0:
    counter = 10
print(counter)
