// Context creation.
#include "ir/context.h"

#include <pthread.h>

#include "dialect/dialect.h"
#include "mlir-c/RegisterEverything.h"

static pthread_once_t passes_once = PTHREAD_ONCE_INIT;

// Upstream passes live in a process-wide registry; textual pipelines need them.
static void register_passes(void) { mlirRegisterAllPasses(); }

MlirContext gg_mlir_context_create(void) {
  pthread_once(&passes_once, register_passes);
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  // Each compile is one small module; threads would only add scheduling noise, and
  // callers compile from several threads with a context each.
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllLLVMTranslations(ctx);
  if (!gg_dialect_load(ctx)) {
    mlirContextDestroy(ctx);
    return (MlirContext){NULL};
  }
  return ctx;
}
