from urllib.parse import urljoin
import urllib.parse
# RFC 3986 section 5.4 examples (normal and abnormal), base http://a/b/c/d;p?q
base = 'http://a/b/c/d;p?q'
refs = ['g:h', 'g', './g', 'g/', '/g', '//g', '?y', 'g?y', '#s', 'g#s', 'g?y#s', ';x', 'g;x', 'g;x?y#s', '', '.', './', '..', '../', '../g', '../..', '../../', '../../g',
        '../../../g', '../../../../g', '/./g', '/../g', 'g.', '.g', 'g..', '..g', './../g', './g/.', 'g/./h', 'g/../h', 'g;x=1/./y', 'g;x=1/../y', 'g?y/./x', 'g?y/../x', 'g#s/./x', 'g#s/../x', 'http:g']
for r in refs:
    print(repr(r), urljoin(base, r))
cases = [
    ('https://example.com/docs/guide/index.html', 'intro.html'),
    ('https://example.com/docs/guide/', '../api/ref.html'),
    ('https://example.com/docs/guide', '/about'),
    ('https://example.com', 'page'),
    ('https://example.com/a/b', 'https://other.org/x'),
    ('https://example.com/a/b', '//cdn.example.com/lib.js'),
    ('https://example.com/a/b?x=1', '?y=2'),
    ('https://example.com/a/b?x=1#top', '#bottom'),
    ('https://example.com/a/b', ''),
    ('', 'relative/path'),
    ('http://a/b/c', 'mailto:someone@example.com'),
    ('http://a/b/c/', 'd/../../e/./f'),
    ('http://a/b//c/d', 'e'),
    ('http://a/b/c', '../../../../x'),
    ('https://example.com/a/b', 'c#frag'),
    ('ftp://host/dir/file', 'other'),
    ('file:///tmp/a/b.txt', 'c.txt'),
    ('https://example.com/path/', '.'),
    ('https://example.com/path/', '..'),
    ('https://user:pw@example.com:8080/a/', 'b?q=1'),
]
for b, u in cases:
    print(repr(b), repr(u), urljoin(b, u), urljoin(b, u, allow_fragments=False), urllib.parse.urljoin(b, u))
