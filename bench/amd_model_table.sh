#!/bin/sh
# Prints the K loop model's table (docs/amd-model.md) at the DeepSeek-V3 shape: stacked
# 8 x 2048 rows, N 4096, K 7168, for every chip x B layout x scaling with the default tile,
# then the 256-wide tiles. Usage: bench/amd_model_table.sh [path/to/gg]
set -eu
GG=${1:-bazel-bin/tools/gg}
SHAPE="--op stacked --groups 2048*8 --N 4096 --K 7168"
stat() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
row() {  # chip b scaling tile wpe
  flags="--target $1 --b $2 --scaling $3"
  [ "$4" = default ] || flags="$flags --tile $4 --wpe $5"
  # shellcheck disable=SC2086
  s=$("$GG" compile $SHAPE $flags --stats -o /dev/null)
  tile=$4; [ "$4" = default ] && tile="default"
  printf '%-7s %-11s %-9s %-12s %4s %7s %6s %5s %6s %7s %6s %5s %6s %5s\n' "$1" "$2" "$3" \
    "$tile" "$(stat "$s" vgpr)" "$(stat "$s" scratch_bytes)" "$(stat "$s" loop_mfma_cycles)" \
    "$(stat "$s" loop_lds_cycles)" "$(stat "$s" loop_vmem_cover)" "$(stat "$s" loop_copies)" \
    "$(stat "$s" loop_cycles_mca)" "$(stat "$s" mfma_share)" "$(stat "$s" l2_demand)" \
    "$(stat "$s" share_bound)"
}
printf '%-7s %-11s %-9s %-12s %4s %7s %6s %5s %6s %7s %6s %5s %6s %5s\n' chip b scaling tile \
  vgpr scratch mfma lds cover copies mca share l2 bound
for chip in gfx942 gfx950; do
  for b in plain preshuffled; do
    for scaling in rowwise blockwise; do row $chip $b $scaling default 0; done
  done
done
for chip in gfx942 gfx950; do
  for b in plain preshuffled; do
    for tile in 256x128x128 128x256x128 256x256x128; do
      for scaling in rowwise blockwise; do row $chip $b $scaling $tile 1 || true; done
    done
  done
done
