import sys
print(sys.version_info >= (3, 8), sys.version_info[:2], sys.version_info.major, sys.version.startswith('3.'))
print(sys.maxsize, sys.maxsize == 2**63 - 1, sys.platform, sys.byteorder)
n = sys.stdout.write('no newline|')
print(n)
sys.stdout.write('line\n')
sys.setrecursionlimit(10000)
print(sys.getsizeof(0), sys.getsizeof(1), sys.getsizeof(2**100), sys.getsizeof(1.5), sys.getsizeof('abc'), sys.getsizeof(''), sys.getsizeof(b'ab'))
print(sys.getsizeof([]), sys.getsizeof((1, 2)), sys.getsizeof({}), sys.getsizeof({'a': 1}), sys.getsizeof(None), sys.getsizeof(True))
print(sys.getsizeof('é'), sys.getsizeof('€uro'))
print(isinstance(sys.getrecursionlimit(), int))
for n in [0, 1, 5, 6, 11, 22, 86, 1000]:
    print(n, sys.getsizeof({str(i): i for i in range(n)}), sys.getsizeof({i: i for i in range(n)}), sys.getsizeof(set(range(n))), sys.getsizeof([0] * n))
