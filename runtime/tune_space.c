// Tuning keys and candidate spaces (runtime/tune.h).
#include <stdio.h>
#include <string.h>

#include "runtime/text.h"
#include "runtime/tune.h"

int64_t gg_tune_next_pow2(int64_t value) {
  if (value <= 0) return 0;
  int64_t p = 1;
  while (p < value && p <= INT64_MAX / 2) p *= 2;
  return p;
}

gg_tune_key gg_tune_key_of(const gg_op_desc* desc, int64_t m, const char* device) {
  gg_tune_key key;
  memset(&key, 0, sizeof key);
  key.target = desc->target;
  // Spaces would end the field in the database's line.
  snprintf(key.device, sizeof key.device, "%s", device ? device : "");
  for (char* c = key.device; *c; ++c)
    if (*c == ' ' || *c == '\t' || *c == '\n') *c = '_';
  key.layout = desc->layout;
  key.scaling = desc->scaling;
  key.b_layout = desc->b_layout;
  key.accum = desc->accum;
  int64_t g = desc->g > 0 ? desc->g : 1;
  int packed = desc->layout == GG_LAYOUT_SIZES || desc->layout == GG_LAYOUT_OFFSETS;
  key.m_bucket = gg_tune_next_pow2(packed ? m / g : m);
  key.n = desc->layout == GG_LAYOUT_N_OFFSETS ? desc->n / g : desc->n;
  key.k = desc->layout == GG_LAYOUT_K_OFFSETS ? desc->k / g : desc->k;
  return key;
}

void gg_tune_key_format(const gg_tune_key* key, char* buffer, size_t size) {
  snprintf(buffer, size, "target=%s device=%s layout=%s scaling=%s b=%s accum=%s m=%lld n=%lld k=%lld",
           gg_target_name(key->target), key->device[0] ? key->device : "-",
           gg_layout_name(key->layout), gg_scaling_name(key->scaling),
           gg_b_layout_name(key->b_layout), gg_accum_name(key->accum), (long long)key->m_bucket,
           (long long)key->n, (long long)key->k);
}

gg_status gg_tune_key_parse(const char* text, gg_tune_key* key) {
  memset(key, 0, sizeof *key);
  const char* p = text;
  char v[GG_TUNE_DEVICE_MAX];
  int e;
  int64_t number;
#define FIELD(name)                                  \
  if (!p || !gg_read_field(&p, name, v, sizeof v)) \
  return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning key: missing or bad '%s'", name)
#define ENUM(name, from_name, field, type)                                                 \
  FIELD(name);                                                                           \
  if ((e = from_name(v)) < 0)                                                            \
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning key: bad %s '%s'", name, v); \
  key->field = (type)e
#define INT(name, field)                                                                   \
  FIELD(name);                                                                           \
  if (!gg_parse_int64(v, &number) || number < 0)                                         \
    return gg_status_make(GG_STATUS_INVALID_ARGUMENT, "tuning key: bad %s '%s'", name, v); \
  key->field = number
  ENUM("target", gg_target_from_name, target, gg_target);
  FIELD("device");
  snprintf(key->device, sizeof key->device, "%s", strcmp(v, "-") ? v : "");
  ENUM("layout", gg_layout_from_name, layout, gg_layout);
  ENUM("scaling", gg_scaling_from_name, scaling, gg_scaling);
  ENUM("b", gg_b_layout_from_name, b_layout, gg_b_layout);
  ENUM("accum", gg_accum_from_name, accum, gg_accum);
  INT("m", m_bucket);
  INT("n", n);
  INT("k", k);
#undef FIELD
#undef ENUM
#undef INT
  return GG_OK;
}

int gg_tune_key_equal(const gg_tune_key* a, const gg_tune_key* b) {
  return a->target == b->target && strcmp(a->device, b->device) == 0 && a->layout == b->layout &&
         a->scaling == b->scaling && a->b_layout == b->b_layout && a->accum == b->accum &&
         a->m_bucket == b->m_bucket && a->n == b->n && a->k == b->k;
}

gg_op_desc gg_tune_candidate_desc(const gg_op_desc* desc, const gg_tune_candidate* c) {
  gg_op_desc d = *desc;
  d.tile = c->tile;
  d.accum = c->accum;
  return d;
}

// Appends desc with (tile, accum) to out when the descriptor rules accept it.
static void add_if_valid(const gg_op_desc* desc, gg_tile_config tile, gg_accum accum,
                         gg_tune_candidate* out, size_t* count) {
  if (*count >= GG_TUNE_MAX_CANDIDATES) return;
  gg_tune_candidate c = {tile, accum};
  gg_op_desc d = gg_tune_candidate_desc(desc, &c);
  gg_status status = gg_op_desc_validate(&d);
  if (status) {
    gg_status_free(status);
    return;
  }
  out[(*count)++] = c;
}

size_t gg_tune_candidates(const gg_op_desc* desc, int allow_fast, gg_tune_candidate* out) {
  static const int32_t mn[] = {64, 128, 256}, ks[] = {128, 256}, wpe[] = {0, 2};
  gg_tune_candidate all[GG_TUNE_MAX_CANDIDATES];
  size_t count = 0;
  gg_tile_config tile = gg_tile_config_default();
  tile.loop = desc->tile.loop;
  if (desc->target == GG_TARGET_SM90A) {
    gg_accum accums[2] = {desc->accum, GG_ACCUM_FAST};
    int modes = allow_fast && desc->accum != GG_ACCUM_FAST ? 2 : 1;
    // 128-row tiles split 1 to 4 ways, and 256-row ones (a cluster of two CTAs sharing B)
    // unsplit: the rules refuse 256 rows with split-K.
    for (int a = 0; a < modes; ++a)
      for (int32_t m = 128; m <= 256; m *= 2)
        for (int n = 0; n < 3; ++n)
          for (int32_t split = 1; split <= GG_SM90_MAX_SPLIT_K; ++split) {
            tile.m = m, tile.n = mn[n], tile.k = 128, tile.waves_per_eu = 0, tile.split_k = split;
            add_if_valid(desc, tile, accums[a], all, &count);
          }
  } else {
    int amd = desc->target == GG_TARGET_GFX942 || desc->target == GG_TARGET_GFX950;
    for (int m = 0; m < 3; ++m)
      for (int n = 0; n < 3; ++n)
        for (int k = 0; k < 2; ++k)
          for (int w = 0; w < (amd ? 2 : 1); ++w) {
            // Blockwise scales come in 128-column blocks.
            if (desc->scaling == GG_SCALING_BLOCKWISE && mn[n] < 128) continue;
            tile.m = mn[m], tile.n = mn[n], tile.k = ks[k], tile.split_k = 1;
            tile.waves_per_eu = amd ? wpe[w] : 0;
            add_if_valid(desc, tile, desc->accum, all, &count);
          }
  }
  // Tiles that divide N and K; all of them where none does (as upstream prunes).
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i)
    if (desc->n % all[i].tile.n == 0 && desc->k % all[i].tile.k == 0) out[kept++] = all[i];
  if (kept == 0) {
    memcpy(out, all, count * sizeof *all);
    kept = count;
  }
  return kept;
}
