class Document:
    """A document with a title and body."""
    count = 0
    def __init__(self, title, body=""):
        self.title = title
        self.body = body
        Document.count += 1
    def words(self):
        return len(self.body.split())
    def __repr__(self):
        return f"Document({self.title!r}, words={self.words()})"
docs = [Document("a", "one two"), Document("b", "x y z"), Document("c")]
print(docs)
print(Document.count, docs[1].title, docs[1].words())
longest = max(docs, key=lambda d: d.words())
print(longest.title, str(longest))
docs[2].body = "now has four words"
print(sorted(docs, key=Document.words, reverse=True)[0])
print(isinstance(docs[0], Document), type(docs[0]).__name__)
