#!/usr/bin/env bash
# Compiles agentbox-sandboxd. The one place its compiler flags live: docker/build-images, the
# host tests (SandboxdHostTest) and the fuzz run (fuzz/run) all compile through this script.
#   build.sh OUT              the binary of the images: static, stripped, -O2, fortified
#   build.sh --sanitize OUT   the same sources with AddressSanitizer and UBSan (dynamic, -g);
#                             the first report ends the process (-fno-sanitize-recover)
#   build.sh --fuzz OUT       the frame parser's libFuzzer target (fuzz/fuzz_frames.c), clang
#   build.sh --vectors OUT    sha256.c behind a stdin filter (test/crypto_vectors.c), sanitized,
#                             for the test vectors of SandboxdCryptoTest
# Every .c in this folder goes into the binary; harnesses live in subfolders.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# Warnings are errors in every build: -Wshadow because a local once hid a global of the same name.
WARN=(-std=c11 -Wall -Wextra -Wshadow -Werror)
RELEASE=(-static -O2 -s -D_FORTIFY_SOURCE=2) # _FORTIFY_SOURCE needs -O1 or more
SANITIZE=(-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all)
mode=release
case "${1:-}" in
  --sanitize | --fuzz | --vectors) mode=${1#--}; shift ;;
esac
[ $# -eq 1 ] || { echo "usage: build.sh [--sanitize|--fuzz|--vectors] OUT" >&2; exit 2; }
case $mode in
  release) exec "${CC:-gcc}" "${WARN[@]}" "${RELEASE[@]}" -o "$1" "$here"/*.c ;;
  sanitize) exec "${CC:-gcc}" "${WARN[@]}" "${SANITIZE[@]}" -o "$1" "$here"/*.c ;;
  fuzz) exec clang "${WARN[@]}" -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=all \
    -fsanitize=fuzzer,address,undefined -I"$here" -o "$1" "$here/frame.c" "$here/sha256.c" \
    "$here/auth.c" "$here/fuzz/fuzz_frames.c" ;;
  vectors) exec "${CC:-gcc}" "${WARN[@]}" "${SANITIZE[@]}" -I"$here" -o "$1" "$here/sha256.c" \
    "$here/test/crypto_vectors.c" ;;
esac
