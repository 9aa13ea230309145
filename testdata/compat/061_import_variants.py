import re, json
import math as m
from collections import Counter as C, defaultdict
from math import sqrt, floor
print(m.floor(2.7), sqrt(9), floor(-1.5))
print(C("aab").most_common(1))
d = defaultdict(set)
d["k"].add(1)
print(dict(d))
print(json.loads("[1]"), re.sub("a", "b", "aaa"))
