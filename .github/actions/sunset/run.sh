#!/usr/bin/env bash
# Runs sunset for the GitHub Action and records its exit code (output exit-code) without
# failing: the SARIF upload comes first, then the Gate step exits with the code.
#
#   mode check:     sunset check --format github --format sarif:SARIF_FILE [--fail-on] [--baseline] [--format ...] -- PATHS
#   mode fix-check: sunset fix --check [--format ...] -- PATHS
#
# Inputs come as INPUT_* variables; paths and formats are words separated by spaces or
# newlines, never expanded as globs.
set -euo pipefail
set -f

# words NAME TEXT sets the array NAME to the words of TEXT.
words() { IFS=$' \t\n' read -r -d '' -a "$1" <<<"$2" || true; }

paths=() formats=()
words paths "${INPUT_PATHS:-}"
words formats "${INPUT_FORMATS:-}"
sarif=""
case "${INPUT_MODE:-check}" in
check)
  args=(check --format github)
  sarif="${INPUT_SARIF_FILE:-}"
  if [ -n "$sarif" ]; then args+=(--format "sarif:$sarif"); fi
  if [ -n "${INPUT_FAIL_ON:-}" ]; then args+=(--fail-on "$INPUT_FAIL_ON"); fi
  if [ -n "${INPUT_BASELINE:-}" ]; then args+=(--baseline "$INPUT_BASELINE"); fi
  ;;
fix-check)
  args=(fix --check)
  if [ -n "${INPUT_FAIL_ON:-}${INPUT_BASELINE:-}" ]; then
    echo "::warning title=sunset::fail-on and baseline apply to mode check; sunset fix --check fails while there is something to rewrite"
  fi
  ;;
*)
  echo "::error title=sunset::mode ${INPUT_MODE}: want check or fix-check"
  echo "exit-code=2" >>"$GITHUB_OUTPUT"
  exit 0
  ;;
esac
for f in ${formats[@]+"${formats[@]}"}; do args+=(--format "$f"); done

echo "sunset ${args[*]} -- ${paths[*]-}"
code=0
sunset "${args[@]}" -- ${paths[@]+"${paths[@]}"} || code=$?
echo "exit-code=$code" >>"$GITHUB_OUTPUT"
if [ -n "$sarif" ] && [ -f "$sarif" ]; then
  echo "sarif-file=$sarif" >>"$GITHUB_OUTPUT"
fi
