def check(answer):
    if not answer:
        raise ValueError(f"empty answer: {answer!r}")
    return answer
print(check("ok"))
check("")
