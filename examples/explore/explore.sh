#!/bin/sh
# Explore the sample changelog and notes offline: no model, no network.
# Needs rlm on PATH (go install github.com/rlmhq/rlm/cmd/rlm@latest).
set -e
cd "$(dirname "$0")"
rlm exec --var changelog=CHANGELOG.md --var notes=notes explore.py
# One-liners work as well; help(search) prints the helper's signature.
rlm exec --var changelog=CHANGELOG.md -c 'print(len(search(changelog, "crash")), "lines mention a crash")'
rlm exec -c 'help(search)'
