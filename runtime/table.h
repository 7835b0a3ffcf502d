// A string-keyed hash table (separate chaining, doubling at load 1): the context's kernels
// and the index of its bundles. Keys are not copied: each must outlive its entry.
#ifndef GG_RUNTIME_TABLE_H_
#define GG_RUNTIME_TABLE_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_table_entry {
  const char* key;
  void* value;
  struct gg_table_entry* next;
} gg_table_entry;

typedef struct gg_table {
  gg_table_entry** buckets;
  size_t bucket_count;  // a power of two, or 0 before the first insertion
  size_t count;
} gg_table;

void gg_table_init(gg_table* table);
void gg_table_free(gg_table* table);  // the entries only; keys and values are the caller's
void* gg_table_get(const gg_table* table, const char* key);
// Adds key (which must be absent); 0 on success, -1 when out of memory.
int gg_table_put(gg_table* table, const char* key, void* value);
// Removes key; returns its value, or NULL when absent.
void* gg_table_remove(gg_table* table, const char* key);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_TABLE_H_
