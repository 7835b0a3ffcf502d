// gg status values: every fallible gg function returns one.
//
// A status is either GG_OK (NULL: success, nothing to free) or an owned error carrying a
// code and a message. The caller that receives an error owns it and frees it with
// gg_status_free (or hands it on). Modelled on IREE's iree_status_t.
#ifndef GG_STATUS_H_
#define GG_STATUS_H_

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gg_status_code {
  GG_STATUS_OK = 0,
  GG_STATUS_INVALID_ARGUMENT = 1,  // the input breaks the operator contract
  GG_STATUS_UNAVAILABLE = 2,       // the target or device is not present here
  GG_STATUS_UNIMPLEMENTED = 3,     // a valid request gg does not support yet
  GG_STATUS_INTERNAL = 4,          // a compiler or runtime failure (a bug, or a broken toolchain)
  GG_STATUS_IO = 5,                // a file could not be read or written
  GG_STATUS_RESOURCE_EXHAUSTED = 6,
  GG_STATUS_NOT_FOUND = 7,         // no kernel for the descriptor, and no compiler to build it
} gg_status_code;

typedef struct gg_status_s* gg_status;

#define GG_OK ((gg_status)0)

// Makes an error status with a printf-style message. Never returns GG_OK for a nonzero
// code; falls back to a static out-of-memory status when allocation fails.
gg_status gg_status_make(gg_status_code code, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
gg_status gg_status_makev(gg_status_code code, const char* format, va_list args);

// Code and message of a status; GG_OK has code GG_STATUS_OK and message "ok".
gg_status_code gg_status_code_of(gg_status status);
const char* gg_status_message(gg_status status);
const char* gg_status_code_name(gg_status_code code);

// Prepends "context: " to the message of an error status (GG_OK passes through).
gg_status gg_status_annotate(gg_status status, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

void gg_status_free(gg_status status);

// Returns from the enclosing function when expr yields an error.
#define GG_RETURN_IF_ERROR(expr)       \
  do {                                 \
    gg_status gg_status_tmp_ = (expr); \
    if (gg_status_tmp_) return gg_status_tmp_; \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif  // GG_STATUS_H_
