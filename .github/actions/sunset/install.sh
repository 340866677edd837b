#!/usr/bin/env bash
# Installs sunset for the GitHub Action.
#
#   install.sh resolve   INPUT_VERSION (latest, 1.2.0, v1.2.0, or a branch or commit) -> outputs
#                        version, dir (where it is installed) and cacheable (a release number)
#   install.sh install   SUNSET_VERSION, SUNSET_DIR, SUNSET_CACHEABLE -> sunset in SUNSET_DIR,
#                        which goes on GITHUB_PATH
#
# A release is downloaded from the releases of sunsetscan/sunset with its SHA256SUMS, and
# refused when the checksum differs. Where the release has no binary for this system (or the
# version is not a release), Go builds it: go install github.com/sunsetscan/sunset/cmd/sunset.
# SUNSET_RELEASES_URL points at another copy of the releases (a mirror).
set -euo pipefail

releases="${SUNSET_RELEASES_URL:-https://github.com/sunsetscan/sunset/releases}"
module=github.com/sunsetscan/sunset/cmd/sunset

# output NAME VALUE sets a step output.
output() { echo "$1=$2" >>"${GITHUB_OUTPUT:-/dev/null}"; }

# fail MESSAGE annotates the step with an error and stops.
fail() {
  echo "::error title=sunset install::$1"
  exit 1
}

# platform sets os, arch, ext (the archive's) and exe (the binary's name) for this runner.
platform() {
  case "${RUNNER_OS:-$(uname -s)}" in
  Linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
  *) os=$(uname -s | tr '[:upper:]' '[:lower:]') ;;
  esac
  case "${RUNNER_ARCH:-$(uname -m)}" in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | arm64 | aarch64) arch=arm64 ;;
  *) arch=$(uname -m) ;;
  esac
  ext=tar.gz exe=sunset
  if [ "$os" = windows ]; then ext=zip exe=sunset.exe; fi
}

# is_release VERSION: whether VERSION is a release number (1.2.0, 1.2.0-rc.1).
is_release() { [[ $1 =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; }

resolve() {
  local v="${INPUT_VERSION:-latest}" url
  if [[ $v =~ ^v[0-9] ]]; then v="${v#v}"; fi
  if [ "$v" = latest ]; then
    # The latest release's page redirects to its tag: no API call, no token, no rate limit.
    # Without a release yet, go install builds @latest.
    if url=$(curl -fsSL --retry 3 -o /dev/null -w '%{url_effective}' "$releases/latest") &&
      [[ ${url##*/} =~ ^v[0-9] ]]; then
      v="${url##*/}"
      v="${v#v}"
    fi
  fi
  platform
  local cacheable=false
  if is_release "$v"; then cacheable=true; fi
  output version "$v"
  output dir "${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}/sunset/$v/$arch"
  output cacheable "$cacheable"
  echo "sunset $v for $os/$arch"
}

# fetch URL FILE downloads URL to FILE; false when it cannot (no such file, no network).
fetch() { curl -fsSL --retry 3 -o "$2" "$1"; }

# sha256 FILE prints FILE's SHA-256 in hex.
sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# download VERSION DIR puts the release binary in DIR; false when the release has none for
# this system; stops on a checksum that differs or is missing.
download() {
  local asset="sunset_${1}_${os}_${arch}.${ext}" base="$releases/download/v$1" tmp want got bin
  tmp=$(mktemp -d)
  if ! fetch "$base/$asset" "$tmp/$asset" || ! fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS"; then
    echo "no $asset with a SHA256SUMS at $base"
    return 1
  fi
  want=$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")
  got=$(sha256 "$tmp/$asset")
  if [ -z "$want" ]; then
    fail "SHA256SUMS of sunset $1 has no line for $asset: not installed"
  fi
  if [ "$want" != "$got" ]; then
    fail "$asset: SHA-256 $got, SHA256SUMS of sunset $1 says $want: not installed"
  fi
  mkdir -p "$tmp/x"
  if [ "$ext" = zip ]; then
    unzip -q "$tmp/$asset" -d "$tmp/x"
  else
    tar -xzf "$tmp/$asset" -C "$tmp/x"
  fi
  bin=$(find "$tmp/x" -type f -name "$exe" | head -n 1)
  if [ -z "$bin" ]; then fail "$asset holds no $exe: not installed"; fi
  mv "$bin" "$2/$exe"
  chmod +x "$2/$exe"
  rm -rf "$tmp"
  echo "downloaded $asset (SHA-256 $got, as SHA256SUMS says)"
}

# go_install VERSION DIR builds sunset into DIR with Go.
go_install() {
  local ref="$1"
  if is_release "$ref"; then ref="v$ref"; fi
  if ! command -v go >/dev/null; then
    fail "no sunset $1 release binary for $os/$arch, and no Go to build it: add actions/setup-go before this action, or choose a released version"
  fi
  echo "go install $module@$ref"
  GOBIN="$2" go install "$module@$ref"
}

install() {
  local v="${SUNSET_VERSION:?}" dir="${SUNSET_DIR:?}"
  platform
  if [ "${SUNSET_CACHEABLE:-false}" = true ] && [ -x "$dir/$exe" ]; then
    echo "sunset $v: from the cache ($dir)"
  else
    rm -rf "$dir"
    mkdir -p "$dir"
    if ! is_release "$v" || ! download "$v" "$dir"; then
      go_install "$v" "$dir"
    fi
  fi
  echo "$dir" >>"${GITHUB_PATH:-/dev/null}"
  "$dir/$exe" version
}

case "${1:-}" in
resolve) resolve ;;
install) install ;;
*)
  echo "usage: install.sh resolve|install" >&2
  exit 2
  ;;
esac
