// The tuning database (runtime/tune.h): a text file of self-checksummed lines, rewritten
// whole and atomically under a lock.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "runtime/files.h"
#include "runtime/hash.h"
#include "runtime/text.h"
#include "runtime/tune.h"

#define DB_HEADER "# gg tuning database v1 (docs/tuning.md)\n"
#define LINE_MAX_BYTES 512

// The text of an entry before its checksum.
static void entry_body(const gg_tune_entry* e, char* buffer, size_t size) {
  char key[256];
  gg_tune_key_format(&e->key, key, sizeof key);
  const gg_tile_config* t = &e->best.tile;
  snprintf(buffer, size, "%s -> tile=%dx%dx%d wpe=%d split=%d accum=%s time_us=%.3f", key, t->m,
           t->n, t->k, t->waves_per_eu, t->split_k > 1 ? t->split_k : 1,
           gg_accum_name(e->best.accum), e->time_us);
}

void gg_tune_entry_format(const gg_tune_entry* entry, char* buffer, size_t size) {
  char body[LINE_MAX_BYTES];
  entry_body(entry, body, sizeof body);
  snprintf(buffer, size, "%s crc=%016llx", body,
           (unsigned long long)gg_fnv1a64(body, strlen(body)));
}

gg_status gg_tune_entry_parse(const char* line, gg_tune_entry* entry) {
  memset(entry, 0, sizeof *entry);
  const char* crc = line ? strstr(line, " crc=") : NULL;
  if (!crc) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning entry: no checksum");
  char* end;
  unsigned long long stored = strtoull(crc + 5, &end, 16);
  if (end != crc + 5 + 16 || *end ||
      stored != (unsigned long long)gg_fnv1a64(line, (size_t)(crc - line)))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning entry: checksum mismatch");
  const char* arrow = strstr(line, " -> ");
  if (!arrow || arrow > crc)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning entry: no ' -> '");
  char key[LINE_MAX_BYTES];
  if ((size_t)(arrow - line) >= sizeof key)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning entry: key too long");
  memcpy(key, line, (size_t)(arrow - line));
  key[arrow - line] = 0;
  GG_RETURN_IF_ERROR(gg_tune_key_parse(key, &entry->key));
  const char* p = arrow + 4;
  char v[64];
  int64_t number;
  int tm, tn, tk;
  char extra;
  if (!gg_read_field(&p, "tile", v, sizeof v) || sscanf(v, "%dx%dx%d%c", &tm, &tn, &tk, &extra) != 3)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning entry: bad tile");
  entry->best.tile = gg_tile_config_default();
  entry->best.tile.m = tm, entry->best.tile.n = tn, entry->best.tile.k = tk;
  if (!gg_read_field(&p, "wpe", v, sizeof v) || !gg_parse_int64(v, &number) || number < 0 || number > 8)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning entry: bad wpe");
  entry->best.tile.waves_per_eu = (int32_t)number;
  if (!gg_read_field(&p, "split", v, sizeof v) || !gg_parse_int64(v, &number) || number < 1 ||
      number > GG_SM90_MAX_SPLIT_K)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning entry: bad split");
  entry->best.tile.split_k = (int32_t)number;
  int accum;
  if (!gg_read_field(&p, "accum", v, sizeof v) || (accum = gg_accum_from_name(v)) < 0)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning entry: bad accum");
  entry->best.accum = (gg_accum)accum;
  if (!gg_read_field(&p, "time_us", v, sizeof v) || sscanf(v, "%lf%c", &entry->time_us, &extra) != 1 ||
      !(entry->time_us >= 0))
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning entry: bad time_us");
  if (p != crc) return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning entry: extra fields");
  return GG_OK;
}

void gg_tune_db_free(gg_tune_db* db) {
  free(db->entries);
  memset(db, 0, sizeof *db);
}

gg_status gg_tune_db_put(gg_tune_db* db, const gg_tune_entry* entry) {
  for (size_t i = 0; i < db->count; ++i)
    if (gg_tune_key_equal(&db->entries[i].key, &entry->key)) {
      db->entries[i] = *entry;
      return GG_OK;
    }
  gg_tune_entry* grown = realloc(db->entries, (db->count + 1) * sizeof *grown);
  if (!grown) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "tuning database: out of memory");
  db->entries = grown;
  db->entries[db->count++] = *entry;
  return GG_OK;
}

gg_status gg_tune_db_merge(gg_tune_db* into, const gg_tune_db* from) {
  into->damaged += from->damaged;
  for (size_t i = 0; i < from->count; ++i) GG_RETURN_IF_ERROR(gg_tune_db_put(into, &from->entries[i]));
  return GG_OK;
}

static gg_status db_parse_into(const char* text, gg_tune_db* db) {
  for (const char* p = text; *p;) {
    size_t length = strcspn(p, "\n");
    if (length > 0 && p[0] != '#') {
      char line[LINE_MAX_BYTES];
      gg_tune_entry entry;
      gg_status status = GG_OK;
      if (length >= sizeof line) {
        ++db->damaged;
      } else {
        memcpy(line, p, length);
        line[length] = 0;
        status = gg_tune_entry_parse(line, &entry);
        if (status) {
          gg_status_free(status);
          ++db->damaged;
        } else {
          GG_RETURN_IF_ERROR(gg_tune_db_put(db, &entry));
        }
      }
    }
    p += length + (p[length] == '\n');
  }
  return GG_OK;
}

gg_status gg_tune_db_parse(const char* text, gg_tune_db* db) {
  memset(db, 0, sizeof *db);
  gg_status status = db_parse_into(text, db);
  if (status) gg_tune_db_free(db);
  return status;
}

gg_status gg_tune_db_load(const char* path, gg_tune_db* db) {
  memset(db, 0, sizeof *db);
  gg_text text;
  gg_text_init(&text);
  gg_status status = gg_file_read(path, &text);
  if (status && gg_status_code_of(status) == GG_STATUS_UNAVAILABLE) {  // no database yet
    gg_status_free(status);
    gg_text_free(&text);
    return GG_OK;
  }
  if (!status && text.failed)
    status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "tuning database: out of memory");
  if (!status) status = db_parse_into(gg_text_str(&text), db);
  gg_text_free(&text);
  if (status) gg_tune_db_free(db);
  return gg_status_annotate(status, "%s", path);
}

gg_status gg_tune_table_read(const char* path, gg_tune_db* db) {
  memset(db, 0, sizeof *db);
  if (access(path, R_OK) != 0)
    return gg_status_make(GG_STATUS_IO, "tuning table %s: %s", path, strerror(errno));
  return gg_tune_db_load(path, db);
}

const gg_tune_entry* gg_tune_db_find(const gg_tune_db* db, const gg_tune_key* key) {
  for (size_t i = 0; i < db->count; ++i)
    if (gg_tune_key_equal(&db->entries[i].key, key)) return &db->entries[i];
  return NULL;
}

static gg_status db_write(const char* path, const gg_tune_db* db) {
  gg_text text;
  gg_text_init(&text);
  gg_text_append(&text, DB_HEADER, strlen(DB_HEADER));
  for (size_t i = 0; i < db->count; ++i) {
    char line[LINE_MAX_BYTES];
    gg_tune_entry_format(&db->entries[i], line, sizeof line);
    gg_text_printf(&text, "%s\n", line);
  }
  gg_status status = text.failed ? gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED,
                                                  "tuning database: out of memory")
                                 : gg_file_write_atomic(path, text.data, text.length, 0644);
  gg_text_free(&text);
  return status;
}

gg_status gg_tune_db_record(const char* path, const gg_tune_entry* entry) {
  char lock_path[4096];
  if (snprintf(lock_path, sizeof lock_path, "%s.lock", path) >= (int)sizeof lock_path)
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning database: path too long");
  int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (lock < 0)
    return gg_status_make(GG_STATUS_IO, "%s: %s", lock_path, strerror(errno));
  while (flock(lock, LOCK_EX) != 0) {
    if (errno != EINTR) {
      gg_status status = gg_status_make(GG_STATUS_IO, "%s: lock: %s", lock_path, strerror(errno));
      close(lock);
      return status;
    }
  }
  gg_tune_db db;
  gg_status status = gg_tune_db_load(path, &db);
  if (!status) status = gg_tune_db_put(&db, entry);
  if (!status) status = db_write(path, &db);  // damaged lines are not written back
  gg_tune_db_free(&db);
  flock(lock, LOCK_UN);
  close(lock);
  return status;
}
