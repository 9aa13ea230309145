#!/bin/sh
# A curl client of rlm serve (the same requests as client.py and client.mjs).
#
#   RLM_SERVE_URL=http://127.0.0.1:8088/v1 RLM_SERVE_TOKEN=a-long-random-secret-token ./client.sh
set -e
URL=${RLM_SERVE_URL:-http://127.0.0.1:8088/v1}
AUTH="Authorization: Bearer ${RLM_SERVE_TOKEN:-unused}"
curl -sS --fail-with-body "$URL/models" -H "$AUTH"
echo
curl -sS --fail-with-body "$URL/chat/completions" -H "$AUTH" -H 'Content-Type: application/json' -d '{
  "model": "rlm",
  "messages": [{"role": "user", "content": "What is the magic number?"}],
  "rlm": {"variables": {"notes": "Meeting notes. ... Ana said the magic number is 42. ..."}, "max_iterations": 10}}'
echo
