# Differential audit of json.loads/dumps against CPython (lone surrogates left out:
# a str here is UTF-8 and cannot hold one).
import json
def show(name, f):
    try:
        r = f()
    except Exception as e:
        r = "%s: %s" % (type(e).__name__, e)
    print(name, repr(r))
for s in ['1e400', '-1e400', '-0', '-0.0', '1.0', '10' + '0' * 30, '1E5', '1e-400', '0.1', '123456789012345678901234567890.5', '-9223372036854775808', '9223372036854775807', '9223372036854775808', '18446744073709551616', '[1, 2.50, -3e2]', '2.0e0', '1.7976931348623157e308', '5e-324', '"\\u00e9\\n\\t\\"\\\\\\/"', '"\\ud83d\\ude00"', '{"a": 1, "a": 2}', '{"a": 1, "b": 2, "a": 3}', '"\\u0000"', '[]', '{}', ' [ 1 , { "x" : null } , true , false ] ', 'NaN', 'Infinity', '-Infinity', '[NaN, Infinity]',
          '', ' ', '[1, 2', '[1, 2,]', '{"a": 1,}', '{"a" 1}', "{'a': 1}", '[1] x', 'tru', 'nul', '01', '-', '1.', '.5', '+1', '"abc', '"a\nb"', '"\\x41"', '{"a": }', '[,1]', '{1: 2}', '"\\u12"', '123abc', '[1]]', 'true false', '1 2', '"\\ud800\\udc00"', '-01', '1e', '1e+', '0x10', '[-]', '{"a":1}}', '[' * 50 + ']' * 50]:
    show("loads %r" % s[:40], lambda: json.loads(s))
show("deep", lambda: len(str(json.loads('[' * 5000 + ']' * 5000))))
show("deepobj", lambda: len(str(json.loads('{"a":' * 3000 + '1' + '}' * 3000))))
show("types", lambda: [type(x).__name__ for x in json.loads('[1, 1.0, -0, 1e2, 10000000000000000000000, "s", null, true, {}, []]')])
show("negzero", lambda: (json.loads('-0'), json.loads('-0.0'), str(json.loads('-0.0')), json.dumps(json.loads('-0.0'))))
show("bytes", lambda: json.loads(b'{"a": [1, "\\u00e9"]}'))
show("dumps", lambda: (json.dumps("\U0001F600"), json.dumps("é", ensure_ascii=False), json.dumps(float("inf")), json.dumps(-0.0), json.dumps(1e400), json.dumps(1e16), json.dumps(1.5e-7), json.dumps({1: 2, True: 3, None: 4, 1.5: 5})))
show("dupkeys order", lambda: list(json.loads('{"b": 1, "a": 2, "b": 3}').items()))
show("roundtrip", lambda: json.loads(json.dumps({"k": [2**63, -2**63 - 1, 1e-320, "\u2028"]})))
show("shared", lambda: [x is y for x, y in [json.loads('["ab", "ab"]')]] and json.loads('["ab", "ab", "ab"]'))
d = json.loads('[{"name": "a", "v": 1}, {"name": "a", "v": 2}]')
d[0]["name"] += "x"
show("mutate", lambda: d)
