reply = "The answer is {\"a\": 1}"
data = json.loads(reply)
