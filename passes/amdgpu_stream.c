// The order of one tile's K-loop work on AMD (see amdgpu_stream.h).
#include "passes/amdgpu_stream.h"

#include <stdlib.h>

int gg_stream_mfmas(const gg_stream_shape* shape) {
  return shape->steps * shape->m_repeat * shape->n_acc;
}

void gg_stream_place_stage(gg_stream_shape* shape, int writes, bool spread) {
  int n = gg_stream_mfmas(shape);
  shape->stage_count = writes;
  shape->stage_at = spread ? 3 * n / 32 : n / 4;
  shape->stage_every = spread && writes > 0 && shape->stage_at + 2 * (writes - 1) < n ? 2 : 1;
  if (shape->stage_at + (writes - 1) * shape->stage_every >= n)
    shape->stage_at = n > writes ? n - writes : 0;
}

// The MFMAs in issue order. Rowwise: step by step over every accumulator (each takes the
// steps in order, a whole row of accumulators apart), or with pair_steps 2 the two steps of
// a read together per row block, so that a row block's A fragment is live for its MFMAs
// alone. Blockwise: per K block, one accumulator's partial at a time over the block's
// steps, so the partials of one accumulator are live at once. Where a partial takes
// several steps (gfx942), the operand with more blocks goes in the outer loop, so that
// only one fragment of it is live at a time (blockwise accumulators take VGPRs, which the
// fragments of the other operand then share: gfx942 128x256 spills 1 register instead of 4).
static void mfma_order(const gg_stream_shape* s, gg_stream_item* order) {
  int n = 0;
  if (s->block_steps > 0) {
    int rows_outer = s->m_repeat >= s->n_acc || s->block_steps == 1;
    int outer = rows_outer ? s->m_repeat : s->n_acc, inner = rows_outer ? s->n_acc : s->m_repeat;
    for (int j = 0; j < s->steps / s->block_steps; ++j)
      for (int o = 0; o < outer; ++o)
        for (int i = 0; i < inner; ++i)
          for (int st = j * s->block_steps; st < (j + 1) * s->block_steps; ++st)
            order[n++] = (gg_stream_item){GG_STREAM_MFMA, st, rows_outer ? o : i, rows_outer ? i : o};
    return;
  }
  int pair = s->pair_steps > 1 ? s->pair_steps : 1;
  for (int s0 = 0; s0 < s->steps; s0 += pair)
    for (int mr = 0; mr < s->m_repeat; ++mr)
      for (int st = s0; st < s0 + pair && st < s->steps; ++st)
        for (int na = 0; na < s->n_acc; ++na) order[n++] = (gg_stream_item){GG_STREAM_MFMA, st, mr, na};
}

typedef struct placed {
  gg_stream_item item;
  int slot;   // the MFMA it goes before (the MFMA count: after the last)
  int order;  // within a slot: reads, then LDS writes and loads, then scaling
  int key;    // then by first use (reads) or index
} placed;

static int compare_placed(const void* x, const void* y) {
  const placed* a = x;
  const placed* b = y;
  if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
  if (a->order != b->order) return a->order < b->order ? -1 : 1;
  return a->key < b->key ? -1 : a->key > b->key;
}

static int min_int(int a, int b) { return a < b ? a : b; }
static int max_int(int a, int b) { return a > b ? a : b; }

// The MFMA index at which a fragment read (kind READ_A or READ_B, of `span` steps from
// `step`) is first (last: `last` true) used, or -1.
static int fragment_use(const gg_stream_shape* s, const gg_stream_item* order, int n,
                        gg_stream_item read, bool last) {
  int span = s->read_span > 0 ? s->read_span : 1, found = -1;
  for (int i = 0; i < n; ++i) {
    bool a = read.kind == GG_STREAM_READ_A || read.kind == GG_STREAM_CARRIED_A || read.kind == GG_STREAM_NEXT_A;
    bool same = order[i].step >= read.step && order[i].step < read.step + span &&
                (a ? order[i].mr == read.mr : order[i].na == read.na);
    if (!same) continue;
    if (!last) return i;
    found = i;
  }
  return found;
}

int gg_stream_carried(const gg_stream_shape* s, gg_stream_item* out, int capacity) {
  int n = gg_stream_mfmas(s), span = s->read_span > 0 ? s->read_span : 1, count = 0;
  gg_stream_item* order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
  if (!order) return -1;
  mfma_order(s, order);
  // The reads the plan puts before the first MFMA: used within read_ahead MFMAs.
  for (int which = 0; which < (s->b_from_lds ? 2 : 1); ++which)
    for (int s0 = 0; s0 < s->steps; s0 += span) {
      int blocks_of = which == 0 ? s->m_repeat : s->n_acc;
      for (int b = 0; b < blocks_of; ++b) {
        gg_stream_item read = {which == 0 ? GG_STREAM_READ_A : GG_STREAM_READ_B, s0, which == 0 ? b : 0,
                               which == 0 ? 0 : b};
        int first = fragment_use(s, order, n, read, false);
        if (first < 0 || first - s->read_ahead > 0) continue;
        if (count == capacity) {
          free(order);
          return -1;
        }
        out[count++] = read;
      }
    }
  free(order);
  return count;
}

int gg_stream_carry_barrier(const gg_stream_shape* s) {
  gg_stream_shape probe = *s;
  probe.carry_out = 1;
  int n = gg_stream_mfmas(s), capacity = 8 * n + 64 + 2 * probe.stage_count +
                                         4 * (s->m_repeat + s->n_acc) * s->steps;
  gg_stream_item* items = malloc((size_t)capacity * sizeof *items);
  int count = items ? gg_stream_plan(&probe, items, capacity) : -1, mfmas = 0, at = -1;
  for (int i = 0; i < count && at < 0; ++i) {
    if (items[i].kind == GG_STREAM_MFMA) ++mfmas;
    if (items[i].kind == GG_STREAM_BARRIER) at = mfmas;
  }
  free(items);
  return at;
}

static bool same_read(gg_stream_item a, gg_stream_item b) {
  return a.kind == b.kind && a.step == b.step && a.mr == b.mr && a.na == b.na;
}

int gg_stream_plan(const gg_stream_shape* s, gg_stream_item* items, int capacity) {
  int n = gg_stream_mfmas(s);
  int span = s->read_span > 0 ? s->read_span : 1;
  int blocks = s->block_steps > 0 ? s->steps / s->block_steps : 0;
  int reads = (s->steps + span - 1) / span * (s->m_repeat + s->n_acc);
  int others = 2 * reads + 1 + blocks * (s->m_repeat * s->n_acc + s->m_repeat + s->n_acc) + 2 * s->stage_count;
  gg_stream_item* order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
  placed* extra = malloc((size_t)others * sizeof *extra);
  if (!order || !extra) {
    free(order);
    free(extra);
    return -1;
  }
  mfma_order(s, order);
  int count = 0;
  // Fragment reads: before the MFMA read_ahead ahead of the first that uses them.
  for (int s0 = 0; s0 < s->steps; s0 += span)
    for (int which = 0; which < 2; ++which) {
      int blocks_of = which == 0 ? s->m_repeat : s->n_acc;
      for (int b = 0; b < blocks_of; ++b) {
        int first = n;
        for (int i = 0; i < n && first == n; ++i)
          if (order[i].step >= s0 && order[i].step < s0 + span && (which == 0 ? order[i].mr : order[i].na) == b)
            first = i;
        gg_stream_item item = {which == 0 ? GG_STREAM_READ_A : GG_STREAM_READ_B, s0, which == 0 ? b : 0,
                               which == 0 ? 0 : b};
        extra[count++] = (placed){item, max_int(0, first - s->read_ahead), 0, 2 * first + which};
      }
    }
  // Blockwise scaling: scale_after MFMAs after the partial's last MFMA; the scales it
  // needs read read_ahead MFMAs ahead of the first scaling that uses them.
  for (int j = 0; j < blocks; ++j) {
    int first_x = count;
    for (int mr = 0; mr < s->m_repeat; ++mr)
      for (int na = 0; na < s->n_acc; ++na) {
        int last = 0;
        for (int i = 0; i < n; ++i)
          if (order[i].step / s->block_steps == j && order[i].mr == mr && order[i].na == na) last = i;
        gg_stream_item item = {GG_STREAM_SCALE, j * s->block_steps, mr, na};
        extra[count++] = (placed){item, min_int(n, last + 1 + s->scale_after), 2, last};
      }
    int scales = count - first_x;
    for (int which = 0; which < 2; ++which) {
      int ws_reads = s->ws_reads < s->n_acc ? s->ws_reads : s->n_acc;  // 0: products staged
      int blocks_of = which == 0 ? s->m_repeat : ws_reads;
      for (int b = 0; b < blocks_of; ++b) {
        int first = n;
        for (int e = first_x; e < first_x + scales; ++e)
          if ((which == 0 ? extra[e].item.mr : extra[e].item.na % ws_reads) == b && extra[e].slot < first)
            first = extra[e].slot;
        gg_stream_item item = {which == 0 ? GG_STREAM_READ_XS : GG_STREAM_READ_WS, j * s->block_steps,
                               which == 0 ? b : 0, which == 0 ? 0 : b};
        extra[count++] = (placed){item, max_int(0, first - s->read_ahead), 0, 2 * first + which};
      }
    }
  }
  // The next tile's LDS writes, one every stage_every MFMAs from stage_at, each followed by
  // the load that takes its registers.
  int every = s->stage_every > 0 ? s->stage_every : 1;
  for (int c = 0; c < s->stage_count; ++c) {
    int slot = min_int(n, s->stage_at + c * every);
    extra[count++] = (placed){{GG_STREAM_STAGE, c, 0, 0}, slot, 1, 2 * c};
    extra[count++] = (placed){{GG_STREAM_LOADS, c, 0, 0}, slot, 1, 2 * c + 1};
  }
  if (s->carry_in || s->carry_out) {
    gg_stream_item* carried = malloc((size_t)reads * sizeof *carried);
    int ncarried = carried ? gg_stream_carried(s, carried, reads) : -1;
    if (ncarried < 0 || ncarried > GG_STREAM_MAX_CARRIED) {
      free(carried);
      free(order);
      free(extra);
      return -1;
    }
    // This tile's first fragments come with the accumulator: no reads for them.
    if (s->carry_in)
      for (int e = 0; e < count; ++e)
        for (int c = 0; c < ncarried; ++c)
          if (same_read(extra[e].item, carried[c]))
            extra[e].item.kind = extra[e].item.kind == GG_STREAM_READ_A ? GG_STREAM_CARRIED_A : GG_STREAM_CARRIED_B;
    if (s->carry_out) {
      // The barrier follows every LDS read and staging write of this tile; then each of
      // the next tile's first fragments once its registers' last MFMA here has issued.
      int barrier = 0;
      for (int e = 0; e < count; ++e) {
        gg_stream_kind kind = extra[e].item.kind;
        if (kind != GG_STREAM_SCALE && kind != GG_STREAM_CARRIED_A && kind != GG_STREAM_CARRIED_B)
          barrier = max_int(barrier, extra[e].slot + 1);
      }
      barrier = min_int(barrier, n);
      extra[count++] = (placed){{GG_STREAM_BARRIER, 0, 0, 0}, barrier, -1, 0};
      // One a gap from the barrier on, in the order the next tile uses them, each once
      // this tile's last MFMA on the registers it replaces has issued.
      int use[GG_STREAM_MAX_CARRIED], by_use[GG_STREAM_MAX_CARRIED];
      for (int c = 0; c < ncarried; ++c) {
        use[c] = fragment_use(s, order, n, carried[c], false);
        int at = c;  // insertion sort of the indices by first use
        for (; at > 0 && use[by_use[at - 1]] > use[c]; --at) by_use[at] = by_use[at - 1];
        by_use[at] = c;
      }
      for (int i = 0, at = barrier; i < ncarried; ++i, ++at) {
        gg_stream_item next = carried[by_use[i]];
        at = min_int(n, max_int(at, fragment_use(s, order, n, next, true) + 1));
        next.kind = next.kind == GG_STREAM_READ_A ? GG_STREAM_NEXT_A : GG_STREAM_NEXT_B;
        extra[count++] = (placed){next, at, 0, 2 * use[by_use[i]] + (next.kind == GG_STREAM_NEXT_B)};
      }
    }
    free(carried);
  }
  qsort(extra, (size_t)count, sizeof *extra, compare_placed);
  int out = 0, e = 0;
  for (int i = 0; i <= n; ++i) {
    for (; e < count && extra[e].slot == i; ++e) {
      if (out == capacity) goto full;
      items[out++] = extra[e].item;
    }
    if (i == n) break;
    if (out + 2 > capacity) goto full;
    items[out++] = (gg_stream_item){GG_STREAM_FENCE, 0, 0, 0};
    items[out++] = order[i];
  }
  free(order);
  free(extra);
  return out;
full:
  free(order);
  free(extra);
  return -1;
}
