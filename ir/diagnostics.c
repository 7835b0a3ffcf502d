// Diagnostic capture and formatting.
#include "ir/diagnostics.h"

#include <string.h>

// Finds the most precise file location inside wrapper locations (names, call sites,
// fused locations).
static int find_file_location(MlirLocation loc, MlirLocation* out, int depth) {
  if (depth > 8) return 0;
  if (mlirLocationIsAFileLineColRange(loc)) {
    *out = loc;
    return 1;
  }
  if (mlirLocationIsAName(loc)) return find_file_location(mlirLocationNameGetChildLoc(loc), out, depth + 1);
  if (mlirLocationIsACallSite(loc))
    return find_file_location(mlirLocationCallSiteGetCallee(loc), out, depth + 1);
  if (mlirLocationIsAFused(loc)) {
    intptr_t n = mlirLocationFusedGetNumLocations(loc);
    MlirLocation parts[16];
    if (n > 16) n = 16;
    mlirLocationFusedGetLocations(loc, parts);
    for (intptr_t i = 0; i < n; ++i)
      if (find_file_location(parts[i], out, depth + 1)) return 1;
  }
  return 0;
}

void gg_format_location(gg_text* text, MlirLocation loc) {
  MlirLocation file;
  if (find_file_location(loc, &file, 0)) {
    MlirStringRef name = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(file));
    gg_text_printf(text, "%.*s:%d:%d", (int)name.length, name.data,
                   mlirLocationFileLineColRangeGetStartLine(file),
                   mlirLocationFileLineColRangeGetStartColumn(file));
  } else if (mlirLocationIsAName(loc)) {
    MlirStringRef name = mlirIdentifierStr(mlirLocationNameGetName(loc));
    gg_text_printf(text, "%.*s", (int)name.length, name.data);
  } else {
    mlirLocationPrint(loc, gg_text_callback, text);
  }
}

static const char* severity_name(MlirDiagnosticSeverity severity) {
  switch (severity) {
    case MlirDiagnosticError: return "error";
    case MlirDiagnosticWarning: return "warning";
    case MlirDiagnosticNote: return "note";
    case MlirDiagnosticRemark: return "remark";
  }
  return "error";
}

// Notes can carry whole modules ("see current operation: ..."): keep their first line.
static void append_message(gg_text* text, MlirDiagnostic diagnostic, int is_note) {
  gg_text message;
  gg_text_init(&message);
  mlirDiagnosticPrint(diagnostic, gg_text_callback, &message);
  const char* s = gg_text_str(&message);
  size_t length = strlen(s);
  if (is_note) {
    const char* newline = strchr(s, '\n');
    if (newline) length = (size_t)(newline - s);
    if (length > 200) length = 200;
  }
  gg_text_append(text, s, length);
  gg_text_free(&message);
}

static void append_diagnostic(gg_diagnostics* d, MlirDiagnostic diagnostic, int depth) {
  size_t start = d->text.length;
  MlirDiagnosticSeverity severity = mlirDiagnosticGetSeverity(diagnostic);
  if (depth) gg_text_printf(&d->text, "  ");
  gg_format_location(&d->text, mlirDiagnosticGetLocation(diagnostic));
  gg_text_printf(&d->text, ": %s: ", severity_name(severity));
  append_message(&d->text, diagnostic, depth > 0);
  gg_text_printf(&d->text, "\n");
  if (severity == MlirDiagnosticError) d->errors++;
  if (d->echo && !d->text.failed) {
    fwrite(d->text.data + start, 1, d->text.length - start, d->echo);
    fflush(d->echo);
  }
  intptr_t notes = mlirDiagnosticGetNumNotes(diagnostic);
  for (intptr_t i = 0; i < notes && depth < 4; ++i)
    append_diagnostic(d, mlirDiagnosticGetNote(diagnostic, i), depth + 1);
}

static MlirLogicalResult handle(MlirDiagnostic diagnostic, void* user_data) {
  append_diagnostic(user_data, diagnostic, 0);
  return mlirLogicalResultSuccess();
}

void gg_diagnostics_attach(gg_diagnostics* d, MlirContext ctx, FILE* echo) {
  gg_text_init(&d->text);
  d->errors = 0;
  d->echo = echo;
  d->ctx = ctx;
  d->id = mlirContextAttachDiagnosticHandler(ctx, handle, d, NULL);
}

void gg_diagnostics_detach(gg_diagnostics* d) {
  mlirContextDetachDiagnosticHandler(d->ctx, d->id);
  gg_text_free(&d->text);
}

void gg_diagnostics_clear(gg_diagnostics* d) {
  gg_text_clear(&d->text);
  d->errors = 0;
}
