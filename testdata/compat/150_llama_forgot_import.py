text = "Contact: alice@example.com, bob.smith@corp.org; invalid: foo@; carol@x.io"
emails = re.findall(r"[\w.]+@[\w]+\.\w+", text)
print(emails)
data = json.loads('{"a": [1, 2, {"b": null}], "ok": true}')
print(data)
print(math.sqrt(16), math.floor(2.7), math.ceil(2.1))
for m in re.finditer(r"(?P<user>[\w.]+)@(?P<domain>[\w.]+)", text):
    print(m.group("user"), "at", m.group("domain"), m.start())
