from fractions import Fraction
import math
F = Fraction
print(repr(2**F(2)), repr(F(1,2)**2), repr(F(4)**F(1,2)), repr(2.0**F(1,2)), repr(F(-7,2)//2), repr(F(-7,2)%2), repr(divmod(F(7,2),F(1,3))), round(F(5,2)), repr(round(F(1,3),2)), repr(F(1,2)**-2))
print(repr(2 ** F(-1)), repr(2 ** F(1,2)), repr(True ** F(-2)), repr(2.0 ** F(-1)), repr(3 ** F(-2)), repr(2 ** F(3)), repr(F(1,2) ** F(-2)))
print(F('1.5e-3'), F(' -3/4 '), F('1_000'), F(0.1), F(1.5).limit_denominator(), F(3.141592653589793).limit_denominator(1000), F(1,3) + 0.5, sum([F(1,3)]*3), F(2,4))
print(hash(F(2)) == hash(2), hash(F(1,2)) == hash(0.5), {2: 'two'}[F(4, 2)])
for bad in ['abc', '1/0', '', '1.2.3', '3/-4', '.5', '5.', 'e5']:
    try:
        print(repr(F(bad)))
    except Exception as e:
        print(type(e).__name__, e)
for args in [(1, 0), (1.5, 2), ([1],), (float('nan'),), (float('inf'),), ('1/2', 3)]:
    try:
        print(F(*args))
    except Exception as e:
        print(type(e).__name__, e)
try:
    F(1, 2) / 0
except ZeroDivisionError as e:
    print('ZeroDivisionError', e)
print(F(1,2) < 1, F(1,2) == 0.5, 1 > F(1,2), sorted([1, F(1,3), 0.5]), int(F(-7,2)), float(F(1,3)), abs(F(-1,2)), -F(1,2), F(1,2).as_integer_ratio(), bool(F(0)))
print(math.floor(F(-7,2)), math.ceil(F(-7,2)), math.trunc(F(-7,2)), F(7,2) * 2, 3 - F(1,2), F(1,2) * 1.0, repr(F(5)), math.sqrt(F(1, 4)))
print(F(1,3) == F(2,6), {F(1,2): 'x'}[F(2,4)], F(10**30, 3), F(1,2) != 0.5, F(1,3) != 1/3, F(1, 3) < float('inf'), F(-1, 3) > float('-inf'))
print(F(F(1, 2), F(3, 4)), F(-6, -4), F(6, -4), F(0, -5), F(1, 3).numerator, F(-1, 3).denominator, F(22, 7).limit_denominator(5), F(-22, 7).limit_denominator(5))
print(F.from_float(0.25), F(1, 2) + F(1, 3) * F(3, 4) - 1, max(F(1, 2), F(2, 3)), min([F(5), 4.5, 6]), F(3, 4) % F(1, 2), 7 // F(2, 3), 7 % F(2, 3))
print('%s and %r' % (F(1, 3), F(1, 3)), str(F(7)), f'{F(2, 3)}', [F(1, 2)], {'k': F(3, 2)})
print(F('3.1415'), F('-0.000'), F('1e3'), F('2E-2'), F(' 7 '))
total = F(0)
for p in ['1/3', '1/6', '1/2']:
    total += F(p)
print(total, total == 1, type(total).__name__, isinstance(total, F))
