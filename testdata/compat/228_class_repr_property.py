class Chunk:
    count = 0
    def __init__(self, text, start):
        self.text = text
        self.start = start
        Chunk.count += 1
    def __repr__(self):
        return f"Chunk(start={self.start}, len={len(self.text)})"
    def __len__(self):
        return len(self.text)
    @property
    def end(self):
        return self.start + len(self.text)
    @staticmethod
    def split(text, size):
        return [Chunk(text[i:i + size], i) for i in range(0, len(text), size)]
    @classmethod
    def empty(cls):
        return cls("", 0)

chunks = Chunk.split("abcdefghij", 4)
print(chunks)
print(chunks[1].end, len(chunks[2]), Chunk.count)
print(Chunk.empty(), str(chunks[0]))
try:
    chunks[0].end = 5
except AttributeError as e:
    print("AttributeError:", e)
