# Sourced by the scripts here: the repository root, where data and
# outputs go, and the two binaries, built from this checkout.
#   env: DATA (host trees, default ${TMPDIR:-/tmp}/agenttools-bench/data),
#        BIN (where the binaries go, default ${TMPDIR:-/tmp}/agenttools-bench/bin),
#        NOBUILD=1 (use the binaries already in $BIN)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
base=${TMPDIR:-/tmp}/agenttools-bench
DATA=${DATA:-$base/data}
BIN=${BIN:-$base/bin}
AT=$BIN/agenttools          # the product's CLI (agenttools call --dir)
BENCH=$BIN/agenttools-bench # in-process timing (agenttools-bench call)
if [ "${NOBUILD:-}" != 1 ]; then
  mkdir -p "$BIN"
  (cd "$repo" && go build -o "$AT" ./cmd/agenttools && go build -o "$BENCH" ./cmd/agenttools-bench)
fi
