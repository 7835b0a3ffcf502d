// A string-keyed hash table.
#include "runtime/table.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/hash.h"

void gg_table_init(gg_table* table) { memset(table, 0, sizeof *table); }

void gg_table_free(gg_table* table) {
  for (size_t b = 0; b < table->bucket_count; ++b)
    for (gg_table_entry* e = table->buckets[b]; e;) {
      gg_table_entry* next = e->next;
      free(e);
      e = next;
    }
  free(table->buckets);
  gg_table_init(table);
}

static size_t bucket_of(const gg_table* table, const char* key) {
  return (size_t)gg_fnv1a64(key, strlen(key)) & (table->bucket_count - 1);
}

void* gg_table_get(const gg_table* table, const char* key) {
  if (!table->bucket_count) return NULL;
  for (gg_table_entry* e = table->buckets[bucket_of(table, key)]; e; e = e->next)
    if (!strcmp(e->key, key)) return e->value;
  return NULL;
}

static int grow(gg_table* table) {
  size_t count = table->bucket_count ? table->bucket_count * 2 : 16;
  gg_table_entry** buckets = calloc(count, sizeof *buckets);
  if (!buckets) return -1;
  gg_table old = *table;
  table->buckets = buckets;
  table->bucket_count = count;
  for (size_t b = 0; b < old.bucket_count; ++b)
    for (gg_table_entry* e = old.buckets[b]; e;) {
      gg_table_entry* next = e->next;
      size_t slot = bucket_of(table, e->key);
      e->next = buckets[slot];
      buckets[slot] = e;
      e = next;
    }
  free(old.buckets);
  return 0;
}

int gg_table_put(gg_table* table, const char* key, void* value) {
  if (table->count >= table->bucket_count && grow(table) != 0) return -1;
  gg_table_entry* entry = malloc(sizeof *entry);
  if (!entry) return -1;
  size_t slot = bucket_of(table, key);
  entry->key = key;
  entry->value = value;
  entry->next = table->buckets[slot];
  table->buckets[slot] = entry;
  ++table->count;
  return 0;
}

void* gg_table_remove(gg_table* table, const char* key) {
  if (!table->bucket_count) return NULL;
  for (gg_table_entry** p = &table->buckets[bucket_of(table, key)]; *p; p = &(*p)->next)
    if (!strcmp((*p)->key, key)) {
      gg_table_entry* entry = *p;
      void* value = entry->value;
      *p = entry->next;
      free(entry);
      --table->count;
      return value;
    }
  return NULL;
}
