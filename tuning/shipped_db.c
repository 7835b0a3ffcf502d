// The shipped tables (tuning/shipped.h) read into one database.
#include <string.h>

#include "tuning/shipped.h"

gg_status gg_shipped_tuning_db(gg_tune_db* out) {
  memset(out, 0, sizeof *out);
  gg_status status = GG_OK;
  for (const gg_shipped_tuning_table* t = gg_shipped_tuning_tables; t->name && !status; ++t) {
    gg_tune_db db;
    status = gg_tune_db_parse(t->text, &db);
    if (status) break;
    status = gg_tune_db_merge(out, &db);
    gg_tune_db_free(&db);
  }
  if (status) gg_tune_db_free(out);
  return gg_status_annotate(status, "the shipped tuning tables");
}
