// Collects MLIR diagnostics as "file:line:col: severity: message" lines, optionally
// echoing them to a stream as they arrive (gg-opt) or keeping them for a status (library).
#ifndef GG_IR_DIAGNOSTICS_H_
#define GG_IR_DIAGNOSTICS_H_

#include <stdio.h>

#include "ir/ir.h"
#include "mlir-c/Diagnostics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gg_diagnostics {
  gg_text text;   // every message so far, one per line (notes indented)
  int errors;
  FILE* echo;     // also written here when not NULL
  MlirContext ctx;
  MlirDiagnosticHandlerID id;
} gg_diagnostics;

// Captures the context's diagnostics until detached; the default printer stays quiet.
void gg_diagnostics_attach(gg_diagnostics* diagnostics, MlirContext ctx, FILE* echo);
void gg_diagnostics_detach(gg_diagnostics* diagnostics);
void gg_diagnostics_clear(gg_diagnostics* diagnostics);

// Formats a location as "file:line:col" (or MLIR's own spelling for other kinds).
void gg_format_location(gg_text* text, MlirLocation loc);

#ifdef __cplusplus
}
#endif

#endif  // GG_IR_DIAGNOSTICS_H_
