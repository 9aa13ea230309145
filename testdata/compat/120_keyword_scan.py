docs = {
    "a.txt": "The invoice total is 450 USD, due March 3.",
    "b.txt": "Meeting notes: discuss budget and hiring.",
    "c.txt": "Invoice #42: total 1,200 USD. Payment overdue!",
    "d.txt": "Nothing relevant here.",
}
keywords = ["invoice", "total", "overdue"]
for name, text in docs.items():
    low = text.lower()
    hits = [k for k in keywords if k in low]
    if any(k in low for k in keywords):
        print(f"{name}: {', '.join(hits)} ({len(hits)}/{len(keywords)})")
scores = {n: sum(t.lower().count(k) for k in keywords) for n, t in docs.items()}
print(scores)
print([n for n, s in scores.items() if s == max(scores.values())])
print(all(k in docs["c.txt"].lower() for k in keywords))
