context = "x" * 12345
chunk = 4000
n = (len(context) + chunk - 1) // chunk
buffers = []
for i in range(n):
    piece = context[i * chunk:(i + 1) * chunk]
    buffers.append(len(piece))
    print(f"[{i + 1}/{n}] processed chars {i * chunk:>6,}-{min((i + 1) * chunk, len(context)):>6,} ({(i + 1) / n:.0%})")
print(buffers, sum(buffers) == len(context))
print(f"{len(context)=}")
