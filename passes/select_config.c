// gg-select-config: makes every gg.grouped_matmul's configuration explicit. A zero tile
// means "the default"; after this pass the tile, waves_per_eu and loop form attributes
// hold the values later passes use. (Tuned choices will plug in here.)
#include "ir/ir.h"
#include "dialect/dialect.h"
#include "passes/pass.h"

static bool run(MlirOperation func, const void* options) {
  (void)options;
  gg_op_list ops = {0};
  gg_collect_ops(func, GG_OP_GROUPED_MATMUL, &ops);
  bool ok = true;
  for (size_t i = 0; i < ops.count; ++i) {
    gg_op_desc desc;
    gg_status status = gg_grouped_matmul_desc(ops.ops[i], &desc);
    if (status) {
      gg_emit_error(ops.ops[i], "%s", gg_status_message(status));
      gg_status_free(status);
      ok = false;
      continue;
    }
    gg_op_desc chosen = gg_op_desc_with_defaults(&desc);
    gg_set_attr_int(ops.ops[i], "tile_m", chosen.tile.m);
    gg_set_attr_int(ops.ops[i], "tile_n", chosen.tile.n);
    gg_set_attr_int(ops.ops[i], "tile_k", chosen.tile.k);
    gg_set_attr_int(ops.ops[i], "waves_per_eu", chosen.tile.waves_per_eu);
  }
  gg_op_list_free(&ops);
  return ok;
}

const gg_pass_info gg_select_config_pass = {
    .argument = "gg-select-config",
    .summary = "Make the tile configuration of every gg.grouped_matmul explicit",
    .anchor = "func.func",
    .run = run,
};
