#!/usr/bin/env bash
# grep against ripgrep on a real host tree (mkdata.sh's gotree: Go's src,
# ~11,500 files, plus a 200 MB file of concatenated Go source; 343 MB).
# For a literal and a regex: the match counts of both, then ROUNDS rounds
# of one hyperfine run (RUNS runs) each (rg default, rg over the same files as ours
# [-uuu -a: no ignore files, hidden files, binary as text] on 2 threads
# and on 1, and `agenttools call grep --dir`), then the product's grep
# in-process (agenttools-bench call: core over hostfs, no process start).
# Needs rg, hyperfine, jq, python3.
#   ./rg.sh [OUT]     env: DATA, TREE, BIN, NOBUILD, ROUNDS, RUNS, LIT, RE, SUMMARY_ONLY (common.sh)
set -eu
. "$(dirname "$0")/common.sh"
OUT=${1:-$base/rg-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
TREE=${TREE:-$DATA/gotree}
ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-3}
LIT=${LIT:-xyzzy}
RE=${RE:-'[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'}
DB=$OUT/cli.db

for kind in literal regex; do
  [ "${SUMMARY_ONLY:-}" = 1 ] && break  # SUMMARY_ONLY=1 ./rg.sh OUT: only redo the summary
  if [ $kind = literal ]; then q=$LIT; F=-F; regex=false; else q=$RE; F=; regex=true; fi
  args=$(jq -cn --arg q "$q" --argjson r $regex '{path:"/workspace",query:$q,limit:1000} + (if $r then {regex:true} else {} end)')
  ours=$("$AT" call --db "$DB" --dir "$TREE" grep "$args" | jq '.count, (.nextOffset // "none")' | tr '\n' ' ')
  same=$(rg $F -c -uuu -a -- "$q" "$TREE" | awk -F: '{s+=$NF} END {print s+0}')
  dflt=$(rg $F -c -- "$q" "$TREE" | awk -F: '{s+=$NF} END {print s+0}')
  echo "$kind '$q': agenttools count/nextOffset $ours; rg same files $same; rg default $dflt" | tee "$OUT/$kind-counts.txt"
  for r in $(seq 1 "$ROUNDS"); do
    echo "$(date +%T) $kind round $r, load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT/load.txt"
    # -i: rg exits 1 when nothing matches (the counts above ran every
    # command once and would have stopped on a real failure).
    hyperfine -N -i --warmup 1 --runs "$RUNS" --export-json "$OUT/$kind-r$r.json" \
      -n rg-default "rg $F -n -- '$q' $TREE" \
      -n rg-same-j2 "rg $F -n -uuu -a -j2 -- '$q' $TREE" \
      -n rg-same-j1 "rg $F -n -uuu -a -j1 -- '$q' $TREE" \
      -n agenttools "$AT call --db $DB --dir $TREE grep '$args'" > "$OUT/$kind-r$r.txt" 2>&1
  done
  "$BENCH" call -dir "$TREE" -repeat 3 -warmup 1 grep "$args" > "$OUT/$kind-inprocess.json"
done

# Summary: per round, the median of each command; ratio ours/rg per round; median of ratios.
python3 - "$OUT" <<'EOF' | tee "$OUT/summary.md"
import json, glob, statistics, sys
out = sys.argv[1]
med = statistics.median
print("| query | command | wall s (median over rounds) | agenttools / this, wall (per-round ratios: median, range) | CPU s (user+sys) | agenttools / this, CPU |")
print("|---|---|---:|---:|---:|---:|")
for kind in ("literal", "regex"):
    wall, cpu = {}, {}
    for f in sorted(glob.glob(f"{out}/{kind}-r*.json")):
        for res in json.load(open(f))["results"]:
            wall.setdefault(res["command"], []).append(res["median"])
            cpu.setdefault(res["command"], []).append(res["user"] + res["system"])
    ours, ours_cpu = wall["agenttools"], cpu["agenttools"]
    for cmd in wall:
        r = [o / m for o, m in zip(ours, wall[cmd])]
        rc = [o / m for o, m in zip(ours_cpu, cpu[cmd])]
        print(f"| {kind} | {cmd} | {med(wall[cmd]):.3f} | {med(r):.1f}× ({min(r):.1f}–{max(r):.1f}) | {med(cpu[cmd]):.3f} | {med(rc):.1f}× |")
    ip = json.load(open(f"{out}/{kind}-inprocess.json"))
    s = ip["us"]["median"] / 1e6
    print(f"| {kind} | agenttools in-process (agenttools-bench call: core over hostfs) | {s:.3f} | {s / med(wall['rg-same-j1']):.1f}× slower than rg-same-j1; CLI/in-process {med(ours) / s:.2f} | | peak RSS {ip['peakRssMB']} MB |")
EOF
