"""A Python client of rlm serve: the official OpenAI SDK, only base_url changes.

Start a server (any OpenAI-compatible upstream), then run this script:

    RLM_SERVE_TOKEN=a-long-random-secret-token OPENAI_BASE_URL=http://localhost:11434/v1 RLM_MODEL=llama3.1 rlm serve --addr 127.0.0.1:8088
    pip install openai
    RLM_SERVE_URL=http://127.0.0.1:8088/v1 RLM_SERVE_TOKEN=a-long-random-secret-token python3 client.py
"""

import os

from openai import OpenAI

client = OpenAI(
    base_url=os.environ.get("RLM_SERVE_URL", "http://127.0.0.1:8088/v1"),
    api_key=os.environ.get("RLM_SERVE_TOKEN", "unused"),
)
notes = "Meeting notes. ... Ana said the magic number is 42. ..."

# One answer: the extra "rlm" field carries the variables and budgets.
r = client.chat.completions.create(
    model="rlm",
    messages=[{"role": "user", "content": "What is the magic number?"}],
    extra_body={"rlm": {"variables": {"notes": notes}, "max_iterations": 10}},
)
print("answer:", r.choices[0].message.content)
print("run:", r.model_extra["rlm"]["run_id"], "stop:", r.model_extra["rlm"]["stop_reason"])

# Streaming: progress chunks carry an "rlm" field and no content, then the
# answer arrives as content deltas.
stream = client.chat.completions.create(
    model="rlm",
    stream=True,
    messages=[{"role": "user", "content": "What is the magic number?"}],
    extra_body={"rlm": {"variables": {"notes": notes}}},
)
events = 0
text = ""
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        text += chunk.choices[0].delta.content
    else:
        events += 1
print("streamed:", text)
print("progress chunks:", events > 0)
