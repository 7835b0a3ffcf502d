// Growable text.
#include "runtime/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gg_text_init(gg_text* text) { memset(text, 0, sizeof *text); }

void gg_text_free(gg_text* text) {
  free(text->data);
  gg_text_init(text);
}

void gg_text_clear(gg_text* text) {
  text->length = 0;
  if (text->data) text->data[0] = 0;
}

static bool reserve(gg_text* text, size_t extra) {
  if (text->failed) return false;
  if (text->length + extra + 1 <= text->capacity) return true;
  size_t capacity = text->capacity ? text->capacity : 256;
  while (capacity < text->length + extra + 1) capacity *= 2;
  char* data = realloc(text->data, capacity);
  if (!data) {
    text->failed = true;
    return false;
  }
  text->data = data;
  text->capacity = capacity;
  return true;
}

void gg_text_append(gg_text* text, const char* data, size_t length) {
  if (!reserve(text, length)) return;
  memcpy(text->data + text->length, data, length);
  text->length += length;
  text->data[text->length] = 0;
}

void gg_text_vprintf(gg_text* text, const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int needed = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (needed >= 0 && reserve(text, (size_t)needed)) {
    vsnprintf(text->data + text->length, (size_t)needed + 1, format, args);
    text->length += (size_t)needed;
  }
}

void gg_text_printf(gg_text* text, const char* format, ...) {
  va_list args;
  va_start(args, format);
  gg_text_vprintf(text, format, args);
  va_end(args);
}

const char* gg_text_str(const gg_text* text) {
  return (text->failed || !text->data) ? "" : text->data;
}

int gg_read_field(const char** p, const char* key, char* value, size_t size) {
  size_t n = strlen(key);
  while (**p == ' ') ++*p;
  if (strncmp(*p, key, n) != 0 || (*p)[n] != '=') return 0;
  const char* v = *p + n + 1;
  size_t length = strcspn(v, " ");
  if (length == 0 || length >= size) return 0;
  memcpy(value, v, length);
  value[length] = 0;
  *p = v + length;
  return 1;
}

int gg_parse_int64(const char* text, int64_t* out) {
  char* end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (end == text || *end || errno == ERANGE) return 0;
  *out = v;
  return 1;
}
