#!/bin/sh
# The Python binding on a CUDA GPU (staged by python/stage_cuda.sh into DIR):
#   sh DIR/run.sh DIR [pytest|moe|ep|all]
# pytest: every test on CUDA tensors (GG_TEST_DEVICE=cuda); moe: the MoE example with its
# benchmark against torch._scaled_grouped_mm; ep: the expert-parallel example over two
# GPUs (torchrun, NCCL with NVLink multicast off).
set -u
D=$(cd "${1:?usage: run.sh DIR [pytest|moe|ep|all]}" && pwd)
WHAT=${2:-all}
export PYTHONPATH="$D/python:$D/site" GG_BUNDLES="$D/python.ggb" GG_PYREF_LIBRARY="$D/libgg_pyref.so"
export GG_CACHE_DIR="$(mktemp -d)" NCCL_NVLS_ENABLE=0
status=0
if [ "$WHAT" = pytest ] || [ "$WHAT" = all ]; then
  GG_TEST_DEVICE=cuda python3 -m pytest -q -p no:cacheprovider "$D/python/tests" || status=1
fi
if [ "$WHAT" = moe ] || [ "$WHAT" = all ]; then
  python3 "$D/examples/python/moe.py" --device cuda || status=1
  for t in 128 4096; do
    python3 "$D/examples/python/moe.py" --device cuda --tokens $t --hidden 7168 --intermediate 2048 \
      --experts 8 --top-k 2 --bench || status=1
  done
fi
if [ "$WHAT" = ep ] || [ "$WHAT" = all ]; then
  if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
    python3 -m torch.distributed.run --standalone --nproc-per-node 2 "$D/examples/python/moe_ep.py" --tokens 256 --hidden 7168 \
      --intermediate 2048 --experts 8 --top-k 2 || status=1
  else
    echo "ep: skipped, one GPU here (run on nvidia-h200-x2)"
  fi
fi
echo "run.sh: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status
