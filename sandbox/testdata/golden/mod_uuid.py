import uuid
a = uuid.uuid5(uuid.NAMESPACE_DNS, 'example.com'); b = uuid.uuid3(uuid.NAMESPACE_URL, 'https://x.org/')
print(a, repr(b), a.hex, a.version, b.version, a.int, a.urn, str(a) == str(uuid.UUID(str(a))), a == uuid.UUID(a.hex), len({a, uuid.UUID(str(a))}))
u = uuid.uuid4(); print(u.version, len(str(u)), u.variant, uuid.UUID(int=1), uuid.UUID(bytes=b'\x00' * 16))
