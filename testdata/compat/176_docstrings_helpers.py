from collections import Counter
def normalize(text):
    """Lowercase, strip punctuation and collapse whitespace.

    Args:
        text: the raw string
    Returns:
        the normalized string
    """
    text = text.lower()
    text = re.sub(r"[^\w\s]", "", text)
    return " ".join(text.split())

def tokens(text: str) -> list:
    '''Return the list of normalized tokens.'''
    return normalize(text).split()

sample = "Hello,   World!  Hello... again; WORLD?"
print(normalize(sample))
print(tokens(sample))
print(Counter(tokens(sample)).most_common(2))
print(normalize.__doc__.splitlines()[0])
print(normalize.__name__)
