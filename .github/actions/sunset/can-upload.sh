#!/usr/bin/env bash
# Says whether the action uploads its SARIF report to code scanning (output upload=true|false).
# upload-sarif true: yes; auto: when the token may read the repository's code scanning
# analyses, which a job without security-events permission, a pull request from a fork and a
# repository without code scanning may not (HTTP 403): those skip the upload with a notice.
set -euo pipefail

upload=false
case "${INPUT_UPLOAD_SARIF:-auto}" in
true) upload=true ;;
false) ;;
auto)
  status=$(curl -sS -o /dev/null -w '%{http_code}' \
    -H "Authorization: Bearer ${GITHUB_TOKEN:-}" \
    -H "Accept: application/vnd.github+json" \
    -H "X-GitHub-Api-Version: 2022-11-28" \
    "${GITHUB_API_URL:-https://api.github.com}/repos/${GITHUB_REPOSITORY:-}/code-scanning/analyses?per_page=1") || status=000
  case "$status" in
  200 | 404) upload=true ;; # 404: no analysis yet
  *) echo "::notice title=sunset::SARIF report not uploaded to code scanning: the token may not read it (HTTP $status). Give the job permissions: security-events: write, or set upload-sarif: false" ;;
  esac
  ;;
*)
  echo "::error title=sunset::upload-sarif ${INPUT_UPLOAD_SARIF}: want auto, true or false"
  exit 2
  ;;
esac
echo "upload=$upload" >>"$GITHUB_OUTPUT"
