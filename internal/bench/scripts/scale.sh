#!/usr/bin/env bash
# How time and memory grow with size (mkdata.sh's trees, over hostfs):
# in-process time (agenttools-bench call: core over hostfs, median of
# REPEAT) and the CLI's wall time and peak RSS (/usr/bin/time -v of
# `agenttools call --dir`, second of two runs). Prints a markdown table
# to OUT/scale.md. Needs jq and GNU time.
#   ./scale.sh [OUT]     env: DATA, BIN, NOBUILD, REPEAT (common.sh)
set -eu
. "$(dirname "$0")/common.sh"
OUT=${1:-$base/scale-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
REPEAT=${REPEAT:-5}
DB=$OUT/cli.db
echo "| workload | size | in-process median ms | p90 ms | in-process peak RSS MB | CLI wall s | CLI peak RSS MB | model bytes | load |" > "$OUT/scale.md"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|" >> "$OUT/scale.md"

# row LABEL SIZE DIR TOOL ARGS: one table row. Env: RESTORE=SRC=DST (host
# file put back before every run), EDITMAX (edit.maxBytes in-process), NOCLI=1.
restore() { if [ -n "${RESTORE:-}" ]; then cp "${RESTORE%%=*}" "${RESTORE#*=}"; fi; }
row() {
  local label=$1 size=$2 dir=$3 tool=$4 args=$5
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  "$BENCH" call -dir "$dir" -repeat "$REPEAT" -warmup 1 -restore "${RESTORE:-}" -edit-max-bytes "${EDITMAX:-0}" "$tool" "$args" > "$OUT/$label.json"
  local cli="-" rss="-"
  if [ "${NOCLI:-}" != 1 ]; then
    restore; "$AT" call --db "$DB" --dir "$dir" "$tool" "$args" > /dev/null || true
    restore; /usr/bin/time -v "$AT" call --db "$DB" --dir "$dir" "$tool" "$args" > /dev/null 2> "$OUT/$label.time" || true
    cli=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; printf "%.3f", s}' "$OUT/$label.time")
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$OUT/$label.time")
  fi
  jq -r --arg l "$label" --arg s "$size" --arg c "$cli" --arg r "$rss" --arg load "$load" \
    '"| \($l) | \($s) | \(.us.median/1000*100|round/100) | \(.us.p90/1000*100|round/100) | \(.peakRssMB) | \($c) | \($r) | \(.modelBytes) | \($load) |"' \
    "$OUT/$label.json" | tee -a "$OUT/scale.md"
}

for f in f10m:10MB f100m:100MB f1g:1GiB; do
  row "read-first-page-${f%%:*}" "${f#*:}" "$DATA/read" read "{\"path\":\"/workspace/${f%%:*}.txt\"}"
done
for n in 10k 100k; do
  row "find-go-first-page-$n" "$n files" "$DATA/find$n" find '{"path":"/workspace","pattern":"**/*.go"}'
  row "find-full-walk-$n" "$n files" "$DATA/find$n" find '{"path":"/workspace","pattern":"**/*.none"}'
done
for g in 10m:10MB 100m:100MB 1g:1GiB; do
  row "grep-literal-none-${g%%:*}" "${g#*:}" "$DATA/grep${g%%:*}" grep '{"path":"/workspace","query":"zqxj-not-here"}'
done
row ls-first-page-20k "20k entries" "$DATA/ls20k" ls '{"path":"/workspace"}'
row ls-first-page-200k "200k entries" "$DATA/ls200k" ls '{"path":"/workspace"}'
row ls-limit-1000-200k "200k entries" "$DATA/ls200k" ls '{"path":"/workspace","limit":1000}'
# edit: one line in the middle; the file is put back before every
# iteration. edit's default cap is 2 MiB: in-process runs raise it to 64
# MiB; the CLI (no such flag) runs only under the cap (1 MB).
mkdir -p "$DATA/editwork"
for mb in 1 10 50; do
  lines=$(wc -l < "$DATA/edit/pristine-${mb}m.txt"); mid=$((lines / 2))
  args="{\"path\":\"/workspace/e.txt\",\"edits\":[{\"oldText\":\"\\n$mid: lorem ipsum dolor\",\"newText\":\"\\n$mid: LOREM IPSUM edited\"}]}"
  NOCLI=$([ $mb = 1 ] && echo 0 || echo 1) EDITMAX=67108864 RESTORE="$DATA/edit/pristine-${mb}m.txt=$DATA/editwork/e.txt" \
    row "edit-exact-${mb}MB" "${mb} MB" "$DATA/editwork" edit "$args"
done
cat "$OUT/scale.md"
