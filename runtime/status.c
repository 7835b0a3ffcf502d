// gg_status: heap-allocated error values with a code and a message.
#include "gg/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gg_status_s {
  gg_status_code code;
  int is_static;  // the out-of-memory fallback is never freed
  char message[];
};

static struct {
  struct gg_status_s header;
  char text[40];
} oom_status = {{GG_STATUS_RESOURCE_EXHAUSTED, 1}, "out of memory while reporting an error"};

gg_status gg_status_makev(gg_status_code code, const char* format, va_list args) {
  if (code == GG_STATUS_OK) return GG_OK;
  va_list copy;
  va_copy(copy, args);
  int length = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (length < 0) length = 0;
  gg_status status = malloc(sizeof(struct gg_status_s) + (size_t)length + 1);
  if (!status) return (gg_status)&oom_status;
  status->code = code;
  status->is_static = 0;
  vsnprintf(status->message, (size_t)length + 1, format, args);
  return status;
}

gg_status gg_status_make(gg_status_code code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  gg_status status = gg_status_makev(code, format, args);
  va_end(args);
  return status;
}

gg_status_code gg_status_code_of(gg_status status) {
  return status ? status->code : GG_STATUS_OK;
}

const char* gg_status_message(gg_status status) { return status ? status->message : "ok"; }

const char* gg_status_code_name(gg_status_code code) {
  switch (code) {
    case GG_STATUS_OK: return "ok";
    case GG_STATUS_INVALID_ARGUMENT: return "invalid argument";
    case GG_STATUS_UNAVAILABLE: return "unavailable";
    case GG_STATUS_UNIMPLEMENTED: return "unimplemented";
    case GG_STATUS_INTERNAL: return "internal";
    case GG_STATUS_IO: return "io";
    case GG_STATUS_RESOURCE_EXHAUSTED: return "resource exhausted";
    case GG_STATUS_NOT_FOUND: return "not found";
  }
  return "unknown";
}

gg_status gg_status_annotate(gg_status status, const char* format, ...) {
  if (!status) return GG_OK;
  char prefix[512];
  va_list args;
  va_start(args, format);
  vsnprintf(prefix, sizeof prefix, format, args);
  va_end(args);
  gg_status annotated = gg_status_make(status->code, "%s: %s", prefix, status->message);
  gg_status_free(status);
  return annotated;
}

void gg_status_free(gg_status status) {
  if (status && !status->is_static) free(status);
}
