cases = ['', '{"a": 1', "{'a': 1}", '[1, 2] extra', '{"a": NaN}', '"unterminated', '{"a" 1}', 'None']
for c in cases:
    try:
        v = json.loads(c)
        print(repr(c), "->", v)
    except json.JSONDecodeError as e:
        print(repr(c), "->", e)
