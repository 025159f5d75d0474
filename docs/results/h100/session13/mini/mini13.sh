#!/usr/bin/env bash
# Session 13: the second search (phase 2a) on the two problems whose non-uniform optima split
# plans d, e and f: three fresh runs (a, b, c), then stability of each pair.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
P="--problem f32:range:1024:2^24:0:100 --problem f32:even:1048576:2^24:0:100"
for r in a b c; do
  echo "=== run $r $(date +%T)"
  rm -f /tmp/$r.db*
  /usr/bin/time -f "wall %e s" .gpu/histtune $P --db /tmp/$r.db --json > "$OUT/tune-$r.json" 2> "$OUT/tune-$r.log"
  tr '\r' '\n' < "$OUT/tune-$r.log" | grep -E "winner|wall|rror"
  python3 -c "
import json,sys
for t in json.load(open(sys.argv[1]))['results']:
    print(' ', t.get('second_search'), [(w['distribution'], w['winner'], round(w['winner_ms']*1000,1)) for w in t['by_distribution']])
" "$OUT/tune-$r.json" 2>&1 | head -8
done
for ab in a:b a:c b:c; do
  IFS=: read -r x y <<< "$ab"
  echo "=== stability $x $y $(date +%T)"
  .gpu/histtune stability /tmp/$x.db /tmp/$y.db > "$OUT/stability-$x-$y.log" 2>&1
  grep -E "^f32|timed|problems within" "$OUT/stability-$x-$y.log"
done
echo "=== end $(date +%T)"
