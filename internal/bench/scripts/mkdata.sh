#!/usr/bin/env bash
# Makes the host trees for rg.sh and scale.sh under $DATA (default
# ${TMPDIR:-/tmp}/agenttools-bench/data, about 3.5 GB; rm -rf it when
# done). Idempotent: what exists is kept. SMALL=1 makes a small set
# (~60 MB: a few Go packages, 10 MB instead of 1 GiB, 1k/2k files) in the
# same layout, to try the scripts quickly.
set -eu  # no pipefail: "head" ends pipelines early on purpose
NOBUILD=1 . "$(dirname "$0")/common.sh"
if [ "${SMALL:-}" = 1 ]; then
  GOSRC=$(go env GOROOT)/src/go BIGMB=20 READMB=10 FINDK=1 LSK=2
else
  GOSRC=$(go env GOROOT)/src BIGMB=200 READMB=1024 FINDK=100 LSK=200
fi
mkdir -p "$DATA"
cd "$DATA"
line='lorem ipsum dolor sit amet, consectetur adipiscing elit'

# Real text: Go's source tree, plus one ~200 MB file of concatenated Go
# source (real text, real line lengths).
if [ ! -d gotree ]; then
  cp -r "$GOSRC" gotree.tmp
  find "$GOSRC" -type f -name '*.go' -size +2k | sort > gofiles.txt
  : > gotree.tmp/big-real.txt
  while [ "$(stat -c %s gotree.tmp/big-real.txt)" -lt $((BIGMB * 1048576)) ]; do
    xargs cat < gofiles.txt >> gotree.tmp/big-real.txt
  done
  head -c $((BIGMB * 1048576)) gotree.tmp/big-real.txt | sed '$d' > big.tmp && mv big.tmp gotree.tmp/big-real.txt
  mv gotree.tmp gotree
fi

# 1 GiB of numbered lines ("N: lorem ..."), and 10 MB / 100 MB prefixes
# (SMALL: f1g.txt is 10 MiB, f100m.txt the same).
if [ ! -f read/f1g.txt ]; then
  mkdir -p read
  seq 1 20000000 | sed "s/\$/: $line/" | head -c $((READMB * 1048576)) > read/f1g.tmp
  mv read/f1g.tmp read/f1g.txt
fi
[ -f read/f10m.txt ] || head -c 10485760 read/f1g.txt > read/f10m.txt
[ -f read/f100m.txt ] || head -c 104857600 read/f1g.txt > read/f100m.txt

# grep trees: 1 MiB files cut on line ends, 10 / 100 / 1024 of them (hard links).
if [ ! -d grep1g ]; then
  mkdir -p grep1g.tmp && (cd grep1g.tmp && split -C 1048576 -d -a 4 --additional-suffix=.txt ../read/f1g.txt part-)
  mv grep1g.tmp grep1g
fi
for n in 10 100; do
  d=grep$([ $n = 10 ] && echo 10m || echo 100m)
  if [ ! -d $d ]; then
    mkdir -p $d && ls grep1g | head -n $n | while read -r f; do ln grep1g/$f $d/$f; done
  fi
done

# find trees: 100 files per directory, extensions cycling .go .ts .go .md .go.
python3 - "$FINDK" "$LSK" <<'EOF'
import os, sys
findk, lsk = int(sys.argv[1]), int(sys.argv[2])
for n, name in ((min(10, findk) * 1000, "find10k"), (findk * 1000, "find100k")):
    if os.path.isdir(name):
        continue
    exts = [".go", ".ts", ".go", ".md", ".go"]
    for i in range(n):
        d = f"{name}.tmp/pkg{i // 100}"
        if i % 100 == 0:
            os.makedirs(d)
        with open(f"{d}/file{i % 100}_{i}{exts[i % 5]}", "w") as f:
            f.write(f"package p{i}\n")
    os.rename(f"{name}.tmp", name)
# one directory of 20,000 / 200,000 empty files
for n, name in ((min(20, lsk) * 1000, "ls20k"), (lsk * 1000, "ls200k")):
    if not os.path.isdir(name):
        os.makedirs(f"{name}.tmp")
        for i in range(n):
            open(f"{name}.tmp/entry-{i}.txt", "w").close()
        os.rename(f"{name}.tmp", name)
EOF

# edit: pristine copies of 1 / 10 / 50 MB prefixes (cut on a line end).
mkdir -p edit
for mb in 1 10 50; do
  [ -f edit/pristine-${mb}m.txt ] || head -c $((mb * 1048576)) read/f1g.txt | sed '$d' > edit/pristine-${mb}m.txt
done
du -sh "$DATA"/* 2>/dev/null
