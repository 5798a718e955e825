#!/usr/bin/env bash
# What building the site costs, the full gallery against SKCODEX_GALLERY=quick.
#
#   bash benchmarks/site_build.sh OUT PAIRS
#
# Builds the site 2 x PAIRS times, full and quick interleaved, each from warm compile
# caches (the user's own) and an empty gallery cache of its own under OUT, into OUT, and
# prints for each build its wall and CPU (user + system) time and the load average at
# its start. The figures in docs/testing.md and benchmarks/results/site_build.json came
# from this loop (four pairs, the fourth with the quick build first), on a copy of the
# checkout, under nice -n 10.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: site_build.sh OUT PAIRS}
pairs=${2:-2}
build() {  # LABEL MODE
  local t="$out/$1"
  rm -rf "$t"; mkdir -p "$t"
  echo "$1 start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  SKCODEX_GALLERY_CACHE="$t/gallery" NO_MKDOCS_2_WARNING=1 SKCODEX_GALLERY=$2 \
    /usr/bin/time -f "$1 wall %e s, user %U s, sys %S s" nice -n 10 \
    mkdocs build --strict -d "$t/site" 2>&1 | grep -E "gallery|wall|rror"
}
for i in $(seq 1 "$pairs"); do
  build "full$i" full
  build "quick$i" quick
done
