import decimal
from decimal import Decimal as D, ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_DOWN, ROUND_UP, ROUND_FLOOR, ROUND_CEILING, ROUND_HALF_DOWN, getcontext
print(getcontext().prec, getcontext().rounding)
print(D('1.1') + D('2.2'), D('1.30') + D('1.20'), D('10') - D('0.001'), D('1.5') * D('2'), D('1') / D('3'), D('2') / D('3'), D(6) / D(2), D('1.0') / D(4), D(10) / D(4), D(1) / D(8))
print(repr(D('0.1')), repr(D(0.1)), repr(D(2.5)), repr(D(-0.0)), repr(D(10**30)), repr(D('1e3')), repr(D('1E+3')), repr(D('-0')), repr(D('.5')), repr(D('5.')), repr(D(' 12.50 ')), repr(D('1_000.5')))
print(D('0.000001'), D('0.0000001'), D('123E-10'), D('1.23E+5'), D('1e-7'), D('100'), D('1E2'), D('0E-10'), D('-1.5E-9'), D('0.00'), D('1234567890123456789012345678901234567890'))
for x in ['2.675', '2.665', '-2.675', '1.005', '0.125', '0.135', '-0.5', '7.3']:
    d = D(x)
    print(x, [str(d.quantize(D('0.01'), rounding=r)) for r in [ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_DOWN, ROUND_UP, ROUND_FLOOR, ROUND_CEILING, ROUND_HALF_DOWN]], d.quantize(D('1')), d.quantize(D('1E+1'), rounding=ROUND_HALF_UP))
print(D('1.23456').quantize(D('0.001')), D('5').quantize(D('0.00')), D('123.456').quantize(D('1.'), ROUND_HALF_UP), D('0').quantize(D('0.01')))
print(D('1.5') < 2, D('1.5') == 1.5, D(2) == 2, 2 == D('2.0'), D('0.1') == 0.1, D('1.5') > D('1.49'), sorted([D('1.2'), 1, D('0.5'), 1.1]), max(D('3'), D('3.5')), D('1.0') in [1])
print(int(D('-7.9')), float(D('1.1')), round(D('2.5')), round(D('3.5')), round(D('2.675'), 2), repr(round(D('-1.255'), 2)), abs(D('-3.20')), -D('1.0'), -D('0'), +D('1.00'), bool(D('0.0')), bool(D('0.1')))
print(D(7) // D(2), D(-7) // D(2), D(7) % D(3), D(-7) % D(3), D('7.5') % D('2'), divmod(D(7), D(2)), D(2) ** 10, D('1.1') ** 2, D(2) ** -2, D(10) ** -3)
print(sum([D('0.1')] * 10), sum([D('0.1')] * 10) == D('1.0'), D('0.1') * 3 == D('0.3'), 1 + D('0.5'), 3 - D('0.5'), 2 * D('0.25'), 1 / D(4), D(1) / 7 * 7)
print(D('3.14159').adjusted(), D('0.001').adjusted(), D('1.200').normalize(), D('100').normalize(), D('0.00').normalize(), D('-0').is_signed(), D('1.5').as_integer_ratio(), D('12.7').to_integral_value(), D('-12.5').to_integral_value(), D('12.5').to_integral_value(rounding=ROUND_HALF_UP))
print(f'{D("1234.5678"):.2f}', f'{D("2.675"):.2f}', f'{D("1234567.891"):,.2f}', f'{D("0.5"):.0f}', f'{D("1.5"):.0f}', f'{D("3.14159"):10.3f}|', f'{D("-2.5"):+.1f}', f'{D("0.125"):.1%}', f'{D("12.50")}', f'{D("1e-9"):f}', '%.2f' % D('2.675'))
print(f'{D("-1234.5"):012,.1f}', f'{D("-1234567.5"):015,}', f'{D("12.345"):012,.1%}', f'{D("1.2345E+10"):,}', f'{D("1234"):+,.2f}', f'{D("1234"):0=12,}', f'{D("1234"):_>12,}')
print(str(D('NaN')), repr(D('-Infinity')), D('inf') > D(10**100), D('NaN') == D('NaN'), D('NaN').is_nan(), D('Infinity').is_infinite(), D(1).is_finite(), float(D('-inf')))
print(hash(D(2)) == hash(2), {D('1.0'): 'one'}[1], D('1.50') == D('1.5'), str(D('1.50')), type(D(1)).__name__, isinstance(D(1), D))
cases = [
    ("D('abc')", lambda: D('abc')),
    ("D('1') / D('0')", lambda: D('1') / D('0')),
    ("D('0') / D('0')", lambda: D('0') / D('0')),
    ("D('1.5') + 1.5", lambda: D('1.5') + 1.5),
    ("1.5 * D('2')", lambda: 1.5 * D('2')),
    ("D('1e10').quantize(D('1e-20'))", lambda: D('1e10').quantize(D('1e-20'))),
    ("D(1) // D(0)", lambda: D(1) // D(0)),
    ("int(D('NaN'))", lambda: int(D('NaN'))),
    ("round(D('Infinity'))", lambda: round(D('Infinity'))),
]
for expr, f in cases:
    try:
        print(expr, repr(f()))
    except decimal.DivisionByZero as e:
        print(expr, 'DivisionByZero', e, isinstance(e, ZeroDivisionError))
    except decimal.InvalidOperation as e:
        print(expr, 'InvalidOperation', e, isinstance(e, ArithmeticError))
    except Exception as e:
        print(expr, type(e).__name__, e)
from decimal import DecimalException
for f in [lambda: D(1) / D(0), lambda: D(1) // D(0)]:
    try:
        f()
    except DecimalException as e:
        print('DecimalException', type(e).__name__, isinstance(e, decimal.DecimalException), isinstance(e, ZeroDivisionError), issubclass(decimal.DivisionByZero, ArithmeticError))
    try:
        f()
    except decimal.DecimalException:
        print('decimal.DecimalException')
    try:
        f()
    except ZeroDivisionError:
        print('ZeroDivisionError')
def catch_in_function():
    try:
        D(0) / D(0)
    except DecimalException as e:
        return type(e).__name__
print(catch_in_function())
ctx = getcontext()
ctx.prec = 6
print(D(1) / D(7), D('1.234567890') + 0, D('1.234567890'), D(2) ** D('0.5') if False else D(22) / 7)
ctx.rounding = ROUND_DOWN
print(D(2) / D(3), ctx.prec, ctx.rounding)
ctx.prec = 28
ctx.rounding = ROUND_HALF_EVEN
print(D(1) / D(3), D(10**28 + 5) * 1)
prices = [D('19.99'), D('5.01'), D('0.10')]
total = sum(prices, D(0))
tax = (total * D('0.0825')).quantize(D('0.01'), rounding=ROUND_HALF_UP)
print(total, tax, total + tax, (total + tax) / 3)
