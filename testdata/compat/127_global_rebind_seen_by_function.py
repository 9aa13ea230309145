threshold = 5
def above(xs):
    return [x for x in xs if x > threshold]
data = [1, 4, 6, 9]
print(above(data))
threshold = 3
print(above(data))
data = [10, 2]
print(above(data))
log = []
def note(msg):
    log.append(msg)
note("a")
log = []
note("b")
print(log)
