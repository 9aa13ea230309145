class Extractor:
    name = "base"
    def __init__(self, pattern):
        self.pattern = re.compile(pattern)
    def extract(self, text):
        return self.pattern.findall(text)
    def __str__(self):
        return f"<{self.name}: {self.pattern.pattern}>"

class EmailExtractor(Extractor):
    name = "email"
    def __init__(self):
        super().__init__(r"[\w.+-]+@[\w-]+\.[\w.]+")
    def extract(self, text):
        return sorted(set(super().extract(text)))

text = "contact ann@x.com, bo@y.org or ann@x.com"
e = EmailExtractor()
print(e, e.extract(text))
print(isinstance(e, Extractor), issubclass(EmailExtractor, Extractor), type(e).__name__)
print(Extractor(r"\d+").extract("a1b22"))
print(str(Extractor("x")))
