s = "Naïve café — “quotes” and emoji 🚀 ok"
print(len(s), s.upper(), s.encode("utf-8")[:12])
print(s.encode("ascii", "ignore").decode(), s.encode("ascii", errors="replace")[:12])
print([c for c in s if ord(c) > 127])
print(s.find("—"), s[11:14], s.split("—")[1].strip())
print(json.dumps(s), json.dumps(s, ensure_ascii=False))
import unicodedata
print(unicodedata.normalize("NFKD", "café").encode("ascii", "ignore").decode())
print("straße".upper(), "İ".lower().encode(), "ǅ".title())
