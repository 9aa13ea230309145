import re
pats = [r'a??', r'a*?', r'(a)??', r'x*?', r'a??b', r'\s*?', r'a{0,2}?', r'(?:ab)*?', r'a??|b', r'b|a??', r'(a??)(b??)', r'a+?', r'.??', r'$|a??', r'a??$']
texts = ['', 'a', 'aa', 'ab', 'bab', 'baab', 'x a a']
for p in pats:
    for t in texts:
        print(repr(p), repr(t), re.findall(p, t), [m.span() for m in re.finditer(p, t)], repr(re.sub(p, '-', t)), re.split(p, t), repr(re.sub(p, lambda m: '<' + m.group() + '>', t)), re.subn(p, '', t)[1])
