// Growable text and byte buffers, with no MLIR: the runtime, the API and the compiler
// all build strings and files with it.
#ifndef GG_RUNTIME_TEXT_H_
#define GG_RUNTIME_TEXT_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Growable text. Allocation failure is sticky: `failed` is set and further appends are
// ignored, so callers check once at the end.
typedef struct gg_text {
  char* data;
  size_t length;
  size_t capacity;
  bool failed;
} gg_text;

void gg_text_init(gg_text* text);
void gg_text_free(gg_text* text);
void gg_text_clear(gg_text* text);
void gg_text_append(gg_text* text, const char* data, size_t length);
void gg_text_printf(gg_text* text, const char* format, ...) __attribute__((format(printf, 2, 3)));
void gg_text_vprintf(gg_text* text, const char* format, va_list args);
// A C string (empty when the text failed).
const char* gg_text_str(const gg_text* text);

// Lines of "key=value" fields separated by spaces (descriptors, the tuning database):
// reads the field `key` at *p (spaces before it skipped) into value and moves *p past it;
// 0 when the next field is another key, or its value is empty or size bytes or longer.
int gg_read_field(const char** p, const char* key, char* value, size_t size);
// A whole decimal int64 (no trailing characters); 0 when text is not one.
int gg_parse_int64(const char* text, int64_t* out);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_TEXT_H_
