"""gg: FP8 grouped GEMMs for mixture-of-experts models, compiled by gg and called from
PyTorch as torch.ops.gg.* with the upstream (torch.ops.mslk.*) schemas.

    import gg, torch
    out = torch.ops.gg.f8f8bf16_rowwise_grouped_stacked(XQ, WQ, x_scale, w_scale, M_sizes)

CPU tensors run on the host target; CUDA tensors on sm_90a (Hopper), on torch's current
stream. Kernels are compiled on first use (libgg) or come from bundles (gg.load_bundle,
$GG_BUNDLES); the disk cache is the C API's ($GG_CACHE_DIR, else ~/.cache/gg).
"""

from ._capi import (  # noqa: F401
    ContractError,
    Error,
    bundle_kernel_count,
    cache_stats,
    compiler_available,
    library_path,
    load_bundle,
    load_tuning_table,
)
from . import ops  # noqa: F401  (registers torch.ops.gg.*)
from .ops import OPS, set_accumulation  # noqa: F401

try:
    from importlib.metadata import version as _version

    __version__ = _version("gg")
except Exception:  # run from a source tree, not installed
    __version__ = "unknown"
