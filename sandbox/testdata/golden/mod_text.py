import base64, html
from urllib.parse import quote, unquote, urlparse, urlencode, parse_qs, parse_qsl, quote_plus, unquote_plus, urlsplit, urlunparse
import urllib.parse
e = base64.b64encode('héllo wörld'.encode())
print(e, base64.b64decode(e).decode(), base64.b64decode('aGVsbG8=\n'), base64.b64decode(b'aGVsbG8'+b'='), base64.urlsafe_b64encode(b'\xfb\xff\xfe'), base64.urlsafe_b64decode('-_-_'))
print(base64.b32encode(b'abc'), base64.b32decode(b'MFRGG==='), base64.b16encode(b'\x01\xab'), base64.b16decode('01AB'))
try:
    base64.b64decode('aGVsbG8')
except ValueError as ex:
    print(type(ex).__name__, ex)
print(html.escape('<a href="x">Tom & Jerry\'s</a>'), html.escape('<"\'>', quote=False))
print(html.unescape('&lt;p&gt; &amp; &quot;hi&quot; &#39;x&#x27; &eacute; &nbsp;| &copy &#8364; &#x80; &hellip; &notin;'))
print(quote('a b/c?d=é&f'), quote('a b/c', safe=''), quote_plus('a b&c=d/e'), unquote('a%20b%2Fc%C3%A9%zz%'), unquote_plus('a+b%2B'))
u = urlparse('https://user:pw@Example.COM:8080/path/to;p=1?q=1&r=a+b#frag')
print(u)
print(u.scheme, u.netloc, u.hostname, u.port, u.username, u.password, u.path, u.params, u.query, u.fragment, u.geturl())
print(urlparse('example.com/x'), urlparse('//host/p'), urlparse('mailto:me@x.org'), urlparse('http://[::1]:80/').hostname)
print(urlsplit('http://a/b;c?d#e'), urlunparse(('http', 'h', '/p', 'x', 'q=1', 'f')), urllib.parse.urlunsplit(('https', 'a.b', 'c', '', '')))
print(urlencode({'a': 1, 'b': 'x y', 'c': 'é&'}), urlencode([('k', 'v'), ('k', 'w')]), urlencode({'l': [1, 2]}, doseq=True), urlencode({'l': [1, 2]}))
print(parse_qs('a=1&b=2&a=3&c=&d=x+y%21'), parse_qs('a=1&c=', keep_blank_values=True), parse_qsl('x=1;y=2', separator=';'))
print(urllib.parse.quote('~user/_.-'))
