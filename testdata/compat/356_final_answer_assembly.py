findings = {
    "chunk_0": {"entities": ["Acme Corp", "J. Doe"], "dates": ["2021-04-02"], "amount": "1,250,000"},
    "chunk_1": {"entities": ["Acme Corp"], "dates": [], "amount": None},
    "chunk_2": {"entities": ["Globex", "J. Doe"], "dates": ["2022-11-30", "2021-04-02"], "amount": "300,000"},
}
entities = sorted({e for f in findings.values() for e in f["entities"]})
dates = sorted(set(d for f in findings.values() for d in f["dates"]))
amounts = [int(f["amount"].replace(",", "")) for f in findings.values() if f["amount"]]
answer = {
    "entities": entities,
    "date_range": f"{dates[0]} to {dates[-1]}" if dates else None,
    "total_amount": f"${sum(amounts):,}",
    "sources": [k for k, f in findings.items() if f["entities"]],
}
print(json.dumps(answer, indent=2))
FINAL_ANSWER = "; ".join(f"{k}={v}" for k, v in answer.items() if k != "sources")
print(FINAL_ANSWER)
