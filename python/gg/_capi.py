"""gg's C API (include/gg/gg.h) through ctypes, and tensors handed to it by DLPack.

ctypes, not a CPython extension: the binding is a thin layer over a stable C ABI, so the
wheel holds only gg's own shared libraries and no code built for one Python version, and
installing it compiles nothing. The price is Python per call: about 25 us for an op's six
DLPack capsules, the call struct and the ctypes call (measured on the 2-core build
machine, 2026-12-02), which a CUDA graph replay does not pay.
"""

import ctypes
import os
import threading

# ---------------------------------------------------------------------------------------
# DLPack (dlpack.h): the structs torch's capsules point at.


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


# An unversioned "dltensor" capsule points at a DLManagedTensor, whose first member is the
# DLTensor itself.
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# ---------------------------------------------------------------------------------------
# gg's enums and structs (include/gg/op.h, include/gg/gg.h).

LAYOUT_SIZES, LAYOUT_OFFSETS, LAYOUT_PADDED, LAYOUT_BATCHED, LAYOUT_N_OFFSETS, LAYOUT_K_OFFSETS = range(6)
SCALING_ROWWISE, SCALING_BLOCKWISE = range(2)
B_PLAIN, B_PRESHUFFLED = range(2)
ACCUM_PROMOTED, ACCUM_FAST = range(2)
STATUS_INVALID_ARGUMENT = 1
OPERAND_COUNT = 6


class TileConfig(ctypes.Structure):
    _fields_ = [
        ("m", ctypes.c_int32),
        ("n", ctypes.c_int32),
        ("k", ctypes.c_int32),
        ("waves_per_eu", ctypes.c_int32),
        ("loop", ctypes.c_int),
        ("split_k", ctypes.c_int32),
    ]


class LaunchOptions(ctypes.Structure):
    _fields_ = [("stream", ctypes.c_void_p), ("completion_signal", ctypes.c_uint64)]


class GroupedGemmCall(ctypes.Structure):
    _fields_ = [
        ("layout", ctypes.c_int),
        ("scaling", ctypes.c_int),
        ("b_layout", ctypes.c_int),
        ("tile", TileConfig),
        ("operands", ctypes.c_void_p * OPERAND_COUNT),
        ("zeroing", ctypes.c_int),
        ("accum", ctypes.c_int),
        ("launch", ctypes.POINTER(LaunchOptions)),
    ]


class ContextOptions(ctypes.Structure):
    _fields_ = [
        ("cache_dir", ctypes.c_char_p),
        ("log", ctypes.c_void_p),
        ("log_user", ctypes.c_void_p),
        ("log_level", ctypes.c_int),
        ("gpu", ctypes.c_int),
        ("bundles", ctypes.POINTER(ctypes.c_char_p)),
        ("bundle_count", ctypes.c_size_t),
        ("shipped_tuning_tables", ctypes.c_int),
        ("autotune", ctypes.c_int),
    ]


class CacheStats(ctypes.Structure):
    _fields_ = [
        ("memory_hits", ctypes.c_uint64),
        ("disk_hits", ctypes.c_uint64),
        ("compiles", ctypes.c_uint64),
        ("files_rejected", ctypes.c_uint64),
        ("bundle_hits", ctypes.c_uint64),
    ]


class Error(RuntimeError):
    """A gg status: `code` is gg's status code name, the message gg's own."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class ContractError(Error, ValueError):
    """The inputs break the operator's contract (GG_STATUS_INVALID_ARGUMENT)."""


# ---------------------------------------------------------------------------------------
# The library: $GG_LIBRARY, else the one the package carries (the compiler if it loads,
# else the runtime alone), else the system's.

_LIB_DIR = os.path.join(os.path.dirname(__file__), "lib")


def _candidates():
    explicit = os.environ.get("GG_LIBRARY")
    if explicit:
        return [explicit]
    names = ["libgg.so", "libgg_runtime.so"]
    return [os.path.join(_LIB_DIR, n) for n in names] + ["libgg.so.0", "libgg_runtime.so.0"]


def _load():
    failures = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            failures.append("%s: %s" % (path, e))
    raise ImportError("gg: no gg library loads (%s)" % ("; ".join(failures) or "none found in " + _LIB_DIR))


lib, library_path = _load()


def _declare(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


_status = ctypes.c_void_p
_declare("gg_status_code_of", ctypes.c_int, _status)
_declare("gg_status_message", ctypes.c_char_p, _status)
_declare("gg_status_code_name", ctypes.c_char_p, ctypes.c_int)
_declare("gg_status_free", None, _status)
_declare("gg_context_options_init", None, ctypes.POINTER(ContextOptions))
_declare("gg_context_create", _status, ctypes.POINTER(ContextOptions), ctypes.POINTER(ctypes.c_void_p))
_declare("gg_context_destroy", None, ctypes.c_void_p)
_declare("gg_context_load_bundle", _status, ctypes.c_void_p, ctypes.c_char_p)
_declare("gg_context_load_tuning_table", _status, ctypes.c_void_p, ctypes.c_char_p)
_declare("gg_context_cache_stats", None, ctypes.c_void_p, ctypes.POINTER(CacheStats))
_declare("gg_context_bundle_kernel_count", ctypes.c_size_t, ctypes.c_void_p)
_declare("gg_grouped_gemm", _status, ctypes.c_void_p, ctypes.POINTER(GroupedGemmCall))
_declare("gg_mm_layout", _status, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int))
_declare("gg_preshuffle_b", _status, ctypes.c_void_p, ctypes.c_void_p)
_declare("gg_unshuffle_b", _status, ctypes.c_void_p, ctypes.c_void_p)


def check(status):
    """Raises the status as an exception (and frees it); GG_OK (NULL) passes."""
    if not status:
        return
    code = lib.gg_status_code_of(status)
    message = lib.gg_status_message(status).decode("utf-8", "replace")
    name = lib.gg_status_code_name(code).decode()
    lib.gg_status_free(status)
    raise (ContractError if code == STATUS_INVALID_ARGUMENT else Error)(name, message)


def compiler_available():
    """True when the loaded library holds the compiler (libgg), not the runtime alone
    (whose misses are GG_STATUS_NOT_FOUND: kernels come from bundles)."""
    return not os.path.basename(library_path).startswith("libgg_runtime")


# ---------------------------------------------------------------------------------------
# The process's context: one, created on first use, shared by every op and thread (gg
# contexts are thread-safe). Its cache directory is the C API's ($GG_CACHE_DIR, else
# ~/.cache/gg); $GG_BUNDLES (paths separated by ':') are loaded when it is created.

_context = None
_context_lock = threading.Lock()


def context():
    global _context
    if _context is not None:
        return _context
    with _context_lock:
        if _context is None:
            options = ContextOptions()
            lib.gg_context_options_init(ctypes.byref(options))
            bundles = [p for p in os.environ.get("GG_BUNDLES", "").split(os.pathsep) if p]
            encoded = (ctypes.c_char_p * max(1, len(bundles)))(*[os.fsencode(p) for p in bundles])
            options.bundles = encoded
            options.bundle_count = len(bundles)
            handle = ctypes.c_void_p()
            check(lib.gg_context_create(ctypes.byref(options), ctypes.byref(handle)))
            _context = handle
    return _context


def load_bundle(path):
    check(lib.gg_context_load_bundle(context(), os.fsencode(os.fspath(path))))


def load_tuning_table(path):
    """Loads a tuning table (docs/tuning.md) into the process's context: launches with a
    key it holds take its tile. $GG_TUNING_TABLES names tables loaded at creation."""
    check(lib.gg_context_load_tuning_table(context(), os.fsencode(os.fspath(path))))


def cache_stats():
    stats = CacheStats()
    lib.gg_context_cache_stats(context(), ctypes.byref(stats))
    return {name: getattr(stats, name) for name, _ in CacheStats._fields_}


def bundle_kernel_count():
    return lib.gg_context_bundle_kernel_count(context())
