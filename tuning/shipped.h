// The tuning tables shipped in tuning/ (docs/tuning.md), compiled into the runtime by
// tuning/BUILD, which every context loads first unless its options say not to.
#ifndef GG_TUNING_SHIPPED_H_
#define GG_TUNING_SHIPPED_H_

#include "runtime/tune.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_shipped_tuning_table {
  const char* name;  // the file's name in tuning/, e.g. "h200.table"
  const char* text;  // its lines
} gg_shipped_tuning_table;

// Ends with an entry whose name is NULL.
extern const gg_shipped_tuning_table gg_shipped_tuning_tables[];

// Every shipped table's entries in one database, merged in order (free it with
// gg_tune_db_free): what the contexts load and what gg bundle bundles for.
gg_status gg_shipped_tuning_db(gg_tune_db* out);

#ifdef __cplusplus
}
#endif

#endif  // GG_TUNING_SHIPPED_H_
