m = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
print(m[1][2], len(m), len(m[0]))
t = [list(row) for row in zip(*m)]
print(t)
diag = [m[i][i] for i in range(len(m))]
print(diag, sum(diag))
flat = [x for row in m for x in row]
print(flat, sum(flat) / len(flat))
for row in m:
    print(" ".join(f"{x:3d}" for x in row))
def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]
print(matmul(m, [[1, 0, 0], [0, 1, 0], [0, 0, 1]]) == m)
print(matmul([[1, 2]], [[3], [4]]))
print(max(max(row) for row in m), [max(col) for col in zip(*m)])
