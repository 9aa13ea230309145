#!/bin/sh
# Answer a question about the sample changelog with a model: any
# OpenAI-compatible server (Ollama, vLLM, llama.cpp, OpenAI, ...).
#
#   OPENAI_BASE_URL=http://localhost:11434/v1 RLM_MODEL=llama3.1 ./run.sh
#   OPENAI_API_KEY=sk-... ./run.sh                  # OpenAI, gpt-4o-mini
#
# -v prints each step as it happens (the model's code, the output it saw);
# the run is kept under .rlm/runs (RLM_RUNS_DIR to change it), and the last
# line on stderr says how to see it step by step: rlm view ID.
set -e
cd "$(dirname "$0")"
rlm run -v \
  --query "Which release fixed the crash on an empty config file, and when was it released?" \
  --var changelog=../explore/CHANGELOG.md \
  --var notes=../explore/notes \
  --output "answer:str, release:str" \
  --max-iterations 8 \
  "$@"
