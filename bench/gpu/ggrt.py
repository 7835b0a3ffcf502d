"""The few calls of libgg_runtime.so the GPU benchmark makes, through ctypes: a context
with bundles, and gg_grouped_gemm on torch's CUDA tensors, asynchronous on a stream. The
structures mirror include/gg/gg.h, include/gg/op.h and DLPack 0.6 field for field."""
import ctypes as C

from cases import split_tile

LAYOUT = {"2d3d": 1, "3d3d": 3, "2d2d": 5}  # gg_layout: offsets, batched, k_offsets
ACCUM = {"promoted": 0, "fast": 1}


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32),
                ("dtype", DLDataType), ("shape", C.POINTER(C.c_int64)),
                ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class TileConfig(C.Structure):
    _fields_ = [("m", C.c_int32), ("n", C.c_int32), ("k", C.c_int32),
                ("waves_per_eu", C.c_int32), ("loop", C.c_int), ("split_k", C.c_int32)]


class LaunchOptions(C.Structure):
    _fields_ = [("stream", C.c_void_p), ("completion_signal", C.c_uint64)]


class Call(C.Structure):
    _fields_ = [("layout", C.c_int), ("scaling", C.c_int), ("b_layout", C.c_int),
                ("tile", TileConfig), ("operands", C.c_void_p * 6), ("zeroing", C.c_int),
                ("accum", C.c_int), ("launch", C.POINTER(LaunchOptions))]


class ContextOptions(C.Structure):
    _fields_ = [("cache_dir", C.c_char_p), ("log", C.c_void_p), ("log_user", C.c_void_p),
                ("log_level", C.c_int), ("gpu", C.c_int),
                ("bundles", C.POINTER(C.c_char_p)), ("bundle_count", C.c_size_t),
                ("shipped_tuning_tables", C.c_int), ("autotune", C.c_int)]


def _dtype(t):
    import torch
    codes = {torch.float8_e4m3fn: (10, 8), torch.float32: (2, 32), torch.bfloat16: (4, 16),
             torch.int32: (0, 32), torch.int64: (0, 64)}
    code, bits = codes[t.dtype]
    return DLDataType(code, bits, 1)


class Tensor:
    """A DLTensor over a torch CUDA tensor (zero-copy); keeps its shape arrays alive."""

    def __init__(self, t):
        self.t = t
        self.shape = (C.c_int64 * t.dim())(*t.shape)
        self.strides = (C.c_int64 * t.dim())(*t.stride())
        self.dl = DLTensor(t.data_ptr(), DLDevice(2, t.device.index or 0), t.dim(), _dtype(t),
                           self.shape, self.strides, 0)


class Runtime:
    def __init__(self, library, bundles, shipped_tables=True, autotune=False):
        self.lib = C.CDLL(library)
        lib = self.lib
        lib.gg_status_message.restype = C.c_char_p
        lib.gg_status_message.argtypes = [C.c_void_p]
        lib.gg_status_free.argtypes = [C.c_void_p]
        lib.gg_context_options_init.argtypes = [C.POINTER(ContextOptions)]
        lib.gg_context_create.restype = C.c_void_p
        lib.gg_context_create.argtypes = [C.POINTER(ContextOptions), C.POINTER(C.c_void_p)]
        lib.gg_context_destroy.argtypes = [C.c_void_p]
        lib.gg_grouped_gemm.restype = C.c_void_p
        lib.gg_grouped_gemm.argtypes = [C.c_void_p, C.POINTER(Call)]
        options = ContextOptions()
        lib.gg_context_options_init(C.byref(options))
        options.cache_dir = b""  # memory only: every kernel must come from the bundles
        options.gpu = -1         # no HSA agent
        self._paths = (C.c_char_p * len(bundles))(*[b.encode() for b in bundles])
        options.bundles = self._paths
        options.bundle_count = len(bundles)
        options.shipped_tuning_tables = int(shipped_tables)  # tuning/*.table, compiled in
        if autotune:
            # Tune each key on its first launch (docs/tuning.md); its log lines are printed.
            options.autotune = 1
            self.autotune_log = []

            def log(user, level, message):
                if message.startswith(b"autotune"):
                    self.autotune_log.append(message.decode())
                    print("  gg:", message.decode(), flush=True)
            self._log = C.CFUNCTYPE(None, C.c_void_p, C.c_int, C.c_char_p)(log)
            options.log = C.cast(self._log, C.c_void_p)
            options.log_level = 1  # GG_LOG_INFO
        context = C.c_void_p()
        self._check(lib.gg_context_create(C.byref(options), C.byref(context)))
        self.context = context

    def _check(self, status):
        if status:
            message = self.lib.gg_status_message(status).decode()
            self.lib.gg_status_free(status)
            raise RuntimeError("gg: " + message)

    def prepare(self, ranks, accum, tile, a, b, sa, sb, meta, out):
        """A launch ready to go: returns f(stream) that enqueues it on a CUstream handle."""
        tensors = [Tensor(x) if x is not None else None for x in (a, b, sa, sb, meta, out)]
        call = Call()
        call.layout = LAYOUT[ranks]
        call.accum = ACCUM[accum]
        if tile:  # MxNxK, or MxNxK/S for split-K S
            dims, split = split_tile(tile)
            call.tile.m, call.tile.n, call.tile.k = (int(x) for x in dims.split("x"))
            call.tile.split_k = split if split > 1 else 0
        for i, t in enumerate(tensors):
            call.operands[i] = C.cast(C.pointer(t.dl), C.c_void_p) if t else None
        launch = LaunchOptions()
        call.launch = C.pointer(launch)

        def run(stream):
            launch.stream = stream
            self._check(self.lib.gg_grouped_gemm(self.context, C.byref(call)))

        run.keep = (tensors, call, launch)
        return run

    def close(self):
        self.lib.gg_context_destroy(self.context)
