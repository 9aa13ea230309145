context = "Dr. Smith arrived at 9 a.m. He was late! Why? Nobody knew. The meeting ended at 5 p.m. Everyone left."
sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", context)
for i, s in enumerate(sentences, 1):
    print(f"{i:>2}. {s}")
print(len(sentences))
naive = [s.strip() for s in context.split(".") if s.strip()]
print(naive[:4])
print(re.split(r"(?<=[.!?]) ", "A. B! C? D"))
