x = 5
def f(): pass
print('x' in globals(), 'y' in globals(), globals()['x'], 'f' in globals(), 'x' in vars())
class A:
    k = 1
    def __init__(self): self.x = 1
    def __len__(self): return 3
    def m(self): pass
a = A()
print([n for n in dir(a) if not n.startswith('__')], hasattr(a, '__len__'), hasattr(a, 'x'), hasattr(a, '__iter__'), hasattr(a, 'm'), hasattr(a, 'zz'))
print(vars(a), dir(a) == sorted(dir(a)), '__init__' in dir(a), '__dict__' in dir(a))
for v in ['s', [1], {1: 2}, (1,), {1}, 3, 2.5, None, b'x', f, len, range(3)]:
    print(type(v).__name__, [hasattr(v, d) for d in ['__len__', '__iter__', '__getitem__', '__contains__', '__call__', '__hash__', 'append', 'keys', 'upper', 'zfill']])
print([m for m in dir('') if not m.startswith('_')])
print(dir([]) == dir(list), len(dir({})))
import json
print([n for n in dir(json) if n in ('dumps', 'loads')], hasattr(json, 'dumps'))
print(hasattr(A, 'm'), hasattr(A, 'k'), hasattr(str, 'upper'), hasattr(int, '__add__'))
from collections import Counter, defaultdict
print(hasattr(Counter(), 'most_common'), hasattr(defaultdict(list), '__missing__'))
