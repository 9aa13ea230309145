import unicodedata as ud
print(ud.name('é'), ud.name('€'), ud.name('a'), ud.name('\x00', 'none'), ud.category('A'), ud.category('é'), ud.category('1'), ud.category(' '), ud.category('\n'), ud.category('—'), ud.category('😀'))
print(ud.normalize('NFD', 'café') == 'cafe\u0301', ud.normalize('NFKC', 'ﬁ ①'), ud.normalize('NFC', 'e\u0301'), ''.join(c for c in ud.normalize('NFKD', 'Crème Brûlée') if not ud.combining(c)))
print(ud.lookup('EURO SIGN'), ud.decimal('٣'), ud.digit('7'), ud.is_normalized('NFC', 'é'))
