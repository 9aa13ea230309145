import math
print(math.comb(5, 2), math.perm(5, 2), math.prod([1, 2, 3, 4]))
print(math.isqrt(17), math.trunc(-2.7), math.copysign(3, -1))
print(math.exp(1) == math.e, round(math.sin(math.pi / 2), 6), round(math.cos(0), 1))
print(math.fsum([0.1] * 10), sum([0.1] * 10))
print(math.isnan(float("nan")), math.isinf(math.inf), math.floor(-0.5), math.ceil(-0.5))
print(round(math.degrees(math.pi), 1), round(math.radians(180), 5), math.atan2(1, 1) * 4 == math.pi)
print(math.dist((0, 0), (3, 4)), math.log(math.e ** 2), math.pow(2, 10))
