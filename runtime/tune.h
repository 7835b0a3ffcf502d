// Autotuning's pieces that need no compiler and no device: the key a tuned choice is
// stored under, the candidate configurations of a descriptor, and the tuning database.
// The key and the space follow the upstream ops (../shared/spec/ops.md, section 10).
#ifndef GG_RUNTIME_TUNE_H_
#define GG_RUNTIME_TUNE_H_

#include <stddef.h>
#include <stdint.h>

#include "gg/op.h"
#include "gg/status.h"

#ifdef __cplusplus
extern "C" {
#endif

// What a tuned choice is keyed on: the target and device, the layout, scaling, B layout
// and the accumulation the caller asked for, the power-of-two bucket of the grouped extent
// per group, and N and K, the grouped one per group (n_offsets: N / G; k_offsets: K / G).
#define GG_TUNE_DEVICE_MAX 64
typedef struct gg_tune_key {
  gg_target target;
  char device[GG_TUNE_DEVICE_MAX];  // e.g. "NVIDIA_H200" (spaces as '_'); "" when modelled
  gg_layout layout;
  gg_scaling scaling;
  gg_b_layout b_layout;
  gg_accum accum;
  int64_t m_bucket;  // next power of two of the rows per group (0 for no rows)
  int64_t n, k;
} gg_tune_key;

// The smallest power of two >= value (0 for value <= 0).
int64_t gg_tune_next_pow2(int64_t value);

// The key of a launch of desc over grouped extent m (gg_operand_shape_of's m: total rows
// for sizes and offsets, the slab height for padded, batched and n_offsets, the rows of A
// for k_offsets) on `device` (NULL: ""). Rows per group: m / G for sizes and offsets, m
// otherwise.
gg_tune_key gg_tune_key_of(const gg_op_desc* desc, int64_t m, const char* device);

// "target=sm_90a device=NVIDIA_H200 layout=sizes scaling=rowwise b=plain accum=fast m=16
// n=4096 k=7168", and back (every field, in this order).
void gg_tune_key_format(const gg_tune_key* key, char* buffer, size_t size);
gg_status gg_tune_key_parse(const char* text, gg_tune_key* key);
int gg_tune_key_equal(const gg_tune_key* a, const gg_tune_key* b);

// One configuration to try: a tile and the accumulation mode.
typedef struct gg_tune_candidate {
  gg_tile_config tile;
  gg_accum accum;
} gg_tune_candidate;

#define GG_TUNE_MAX_CANDIDATES 128

// desc with candidate c's tile and accumulation: the descriptor a sweep compiles for c.
gg_op_desc gg_tune_candidate_desc(const gg_op_desc* desc, const gg_tune_candidate* c);

// The candidates for desc, in a fixed order, into out (at most GG_TUNE_MAX_CANDIDATES):
//   gfx942, gfx950: tile_m, tile_n in {64, 128, 256} (blockwise tile_n {128, 256}), tile_k
//                   {128, 256}, waves_per_eu {0, 2};
//   sm_90a:         tile 128 x {64, 128, 256} x 128, split-K 1 to GG_SM90_MAX_SPLIT_K, and
//                   both accumulations where allow_fast (else desc's);
//   host:           tile_m, tile_n in {64, 128, 256}, tile_k {128, 256}.
// Each is desc with that configuration; those gg_op_desc_validate refuses (LDS, the
// sm_90a rules, preshuffled B's multiples) are dropped. Of the rest, those whose tile_n
// divides N and tile_k divides K, or all of them where none does. Returns the count.
size_t gg_tune_candidates(const gg_op_desc* desc, int allow_fast, gg_tune_candidate* out);

// A candidate as the sweeps print and log it: "MxNxK/wW/sS/ACCUM", e.g.
// "128x64x128/w0/s1/promoted".
void gg_tune_candidate_label(const gg_tune_candidate* c, char* buffer, size_t size);

// Test hooks for the sweeps' own tests: GG_TUNE_FAKE_US="LABEL=us,..." replaces measured
// times (gg_tune_fake_us: -1 when it is not set, 1e9 for a label it does not list), and
// GG_TUNE_BREAK=LABEL names a candidate whose output the sweep corrupts after each launch
// (gg_tune_breaks), so that its check must reject it.
double gg_tune_fake_us(const char* label);
int gg_tune_breaks(const char* label);

// The tuning database: one line per key, "KEY -> tile=MxNxK wpe=W split=S accum=A
// time_us=T crc=HEX", each line carrying its own checksum (FNV-1a of the text before
// " crc="), so a damaged line is ignored alone (counted, and dropped when the file is next
// written). docs/tuning.md describes the format.
typedef struct gg_tune_entry {
  gg_tune_key key;
  gg_tune_candidate best;
  double time_us;
} gg_tune_entry;

typedef struct gg_tune_db {
  gg_tune_entry* entries;
  size_t count;
  size_t damaged;  // lines ignored: bad checksum or unreadable
} gg_tune_db;

// Reads path into db (a missing file is an empty database). Free with gg_tune_db_free.
gg_status gg_tune_db_load(const char* path, gg_tune_db* db);
// Reads a table someone named (a file the caller gives, not the database a sweep keeps):
// as gg_tune_db_load, but a missing or unreadable file is an error (GG_STATUS_IO).
gg_status gg_tune_table_read(const char* path, gg_tune_db* db);
// Reads a database's text (a shipped table's, say) into db, as gg_tune_db_load does.
gg_status gg_tune_db_parse(const char* text, gg_tune_db* db);
void gg_tune_db_free(gg_tune_db* db);
const gg_tune_entry* gg_tune_db_find(const gg_tune_db* db, const gg_tune_key* key);
// Adds entry to db in memory, replacing one of the same key.
gg_status gg_tune_db_put(gg_tune_db* db, const gg_tune_entry* entry);
// Puts every entry of `from` into `into`, in order (a later table's entry replaces an
// earlier one of the same key), and adds up their damaged lines.
gg_status gg_tune_db_merge(gg_tune_db* into, const gg_tune_db* from);
// Adds entry to the database at path, replacing one of the same key: under an exclusive
// lock on path + ".lock" (concurrent writers, threads or processes, each keep theirs), the
// file is read again, changed, and written whole, atomically (readers see the old file or
// the new one).
gg_status gg_tune_db_record(const char* path, const gg_tune_entry* entry);

// One entry as its line (with checksum, without the newline), and back: parsing fails on
// a wrong checksum or field.
void gg_tune_entry_format(const gg_tune_entry* entry, char* buffer, size_t size);
gg_status gg_tune_entry_parse(const char* line, gg_tune_entry* entry);

#ifdef __cplusplus
}
#endif

#endif  // GG_RUNTIME_TUNE_H_
