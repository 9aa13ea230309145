scores = {"alice": 88, "bob": 72, "carol": 95, "dan": 60, "erin": 79}
passed = {k: v for k, v in scores.items() if v >= 75}
print(passed)
grades = {k: ("A" if v >= 90 else "B" if v >= 80 else "C") for k, v in scores.items()}
print(grades)
inverted = {v: k for k, v in scores.items()}
print(inverted[95])
squares = {i: i * i for i in range(1, 6) if i % 2}
print(squares)
lengths = [len(k) for k in scores if k[0] in "aeiou"]
print(lengths)
matrix = [[i * j for j in range(1, 4)] for i in range(1, 4)]
print(matrix, [row[i] for i, row in enumerate(matrix)])
flat = [x for row in matrix for x in row if x % 2 == 0]
print(flat)
print({k: v for k, v in sorted(scores.items(), key=lambda kv: kv[1], reverse=True)[:3]})
