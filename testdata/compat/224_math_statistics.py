import statistics
vals = [2.5, 3.1, 4.7, 1.2, 9.9, 3.1, 5.0]
print(statistics.mean(vals), statistics.median(vals), statistics.mode(vals))
print(round(statistics.stdev(vals), 4), round(statistics.pstdev(vals), 4))
print(statistics.variance([1, 2, 3, 4]))
print(statistics.median([1, 3, 2, 4]))
print(statistics.mean([1, 2, 3, 4]))
print(math.sqrt(2), math.floor(-2.5), math.ceil(2.1), math.log(100, 10), math.log2(8))
print(math.isclose(0.1 + 0.2, 0.3), math.inf > 10**100, math.isnan(float("nan")))
print(math.gcd(12, 18), math.factorial(10), math.comb(10, 3), math.perm(5, 2))
print(math.pi, round(math.e, 5), math.hypot(3, 4), math.fsum([0.1] * 10))
print(statistics.quantiles([1, 2, 3, 4, 5, 6, 7, 8], n=4))
print(math.prod([1, 2, 3, 4]), math.trunc(-3.7), math.copysign(1, -0.0))
