import hashlib
for n in ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'blake2b', 'blake2s', 'sha3_256']:
    h = hashlib.new(n, b'abc')
    print(n, h.name, h.digest_size, h.block_size, h.hexdigest())
h = hashlib.sha256(); h.update(b'hello '); c = h.copy(); h.update(b'world')
print(h.hexdigest(), c.hexdigest(), h.digest()[:4])
print(hashlib.md5('héllo'.encode()).hexdigest(), hashlib.blake2b(b'x', digest_size=16).hexdigest(), hashlib.blake2b(b'x', key=b'k', digest_size=20).hexdigest())
print(hashlib.new('SHA256', data=b'').hexdigest(), hashlib.sha1(b'a' * 1000).hexdigest())
try:
    hashlib.md5('abc')
except TypeError as e:
    print('TypeError', e)
print(sorted(hashlib.algorithms_guaranteed & {'md5', 'sha256'}))
