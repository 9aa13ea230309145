import csv, io
text = 'id,name,note\n1,Ann,"likes, commas"\n2,Bo,"says ""hi"""\n3,Cy,\n'
reader = csv.DictReader(io.StringIO(text))
rows = list(reader)
print(rows[0])
print([r["note"] for r in rows])
print(reader.fieldnames)
for row in csv.reader(io.StringIO(text)):
    print(row)
out = io.StringIO()
w = csv.writer(out)
w.writerow(["a", "b,c", 'd"e'])
w.writerow([1, None, 2.5])
print(repr(out.getvalue()))
