class Index:
    def __init__(self):
        self._data = {}
    def add(self, word, doc):
        self._data.setdefault(word, set()).add(doc)
        return self
    def __getitem__(self, word):
        return sorted(self._data.get(word, ()))
    def __contains__(self, word):
        return word in self._data
    def __len__(self):
        return len(self._data)
    def __iter__(self):
        return iter(sorted(self._data))
idx = Index()
for doc, text in {"d1": "red fox", "d2": "red dog", "d3": "blue fox"}.items():
    for w in text.split():
        idx.add(w, doc)
print(len(idx), list(idx), idx["fox"], idx["cat"], "red" in idx)
print(idx.add("x", "d9")["x"])
