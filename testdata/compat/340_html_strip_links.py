html = """<html><body><h1>Title &amp; More</h1>
<p>See <a href="https://example.com/a">link A</a> and <a href='/rel/b' class="x">B</a>.</p>
<!-- comment -->
<p>Price:&nbsp;<b>$5</b></p></body></html>"""
links = re.findall(r"""<a\s+[^>]*href=["']([^"']+)["'][^>]*>(.*?)</a>""", html, re.I | re.S)
print(links)
text = re.sub(r"<!--.*?-->", "", html, flags=re.S)
text = re.sub(r"<[^>]+>", " ", text)
import html as htmlmod
text = htmlmod.unescape(text)
text = re.sub(r"\s+", " ", text).strip()
print(text)
print(re.findall(r"<(\w+)", html)[:5], len(re.findall(r"</p>", html)))
