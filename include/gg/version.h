// gg's version. The major number is the shared libraries' soname (libgg.so.0,
// libgg_runtime.so.0): it changes when the C API or ABI breaks.
#ifndef GG_VERSION_H_
#define GG_VERSION_H_

#define GG_VERSION_MAJOR 0
#define GG_VERSION_MINOR 13
#define GG_VERSION_PATCH 0
#define GG_VERSION_STRING "0.13.0"

#endif  // GG_VERSION_H_
