// Host shared objects: LLVM IR from the host pipeline, optimised and compiled for this
// CPU by LLVM's C API, then linked with ld.lld -shared.
#include "compiler/host_library.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compiler/amdgpu.h"
#include "ir/translate.h"
#include "runtime/files.h"
#include "llvm-c/Core.h"
#include "llvm-c/Target.h"
#include "llvm-c/TargetMachine.h"
#include "llvm-c/Transforms/PassBuilder.h"
#include "mlir-c/Target/LLVMIR.h"

extern char** environ;

static pthread_once_t native_once = PTHREAD_ONCE_INIT;
static int native_ready;

static void native_init(void) {
  native_ready = !LLVMInitializeNativeTarget() && !LLVMInitializeNativeAsmPrinter();
}

void gg_host_cpu_id(char* buffer, size_t size) {
  char* triple = LLVMGetDefaultTargetTriple();
  char* cpu = LLVMGetHostCPUName();
  char* features = LLVMGetHostCPUFeatures();
  snprintf(buffer, size, "%s %s %s", triple, cpu, features);
  LLVMDisposeMessage(features);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(triple);
}

static gg_status llvm_error(LLVMErrorRef error, const char* what) {
  char* message = LLVMGetErrorMessage(error);
  gg_status status = gg_status_make(GG_STATUS_INTERNAL, "%s: %s", what, message);
  LLVMDisposeErrorMessage(message);
  return status;
}

// Optimises module at O3 for this CPU and appends its object code to out.
static gg_status emit_object(LLVMModuleRef module, gg_text* out) {
  pthread_once(&native_once, native_init);
  if (!native_ready)
    return gg_status_make(GG_STATUS_UNAVAILABLE, "LLVM has no code generator for this CPU");
  char* triple = LLVMGetDefaultTargetTriple();
  char* cpu = LLVMGetHostCPUName();
  char* features = LLVMGetHostCPUFeatures();
  LLVMTargetRef target = NULL;
  char* message = NULL;
  gg_status status = GG_OK;
  LLVMTargetMachineRef machine = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &message)) {
    status = gg_status_make(GG_STATUS_UNAVAILABLE, "no LLVM target for %s: %s", triple, message);
    LLVMDisposeMessage(message);
  } else {
    machine = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelAggressive,
                                      LLVMRelocPIC, LLVMCodeModelDefault);
    if (!machine) status = gg_status_make(GG_STATUS_INTERNAL, "no target machine for %s", triple);
  }
  if (!status) {
    LLVMSetTarget(module, triple);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(machine);
    LLVMSetModuleDataLayout(module, layout);
    LLVMDisposeTargetData(layout);
    LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
    LLVMErrorRef error = LLVMRunPasses(module, "default<O3>", machine, options);
    LLVMDisposePassBuilderOptions(options);
    if (error) status = llvm_error(error, "optimising the host kernel");
  }
  if (!status) {
    LLVMMemoryBufferRef object = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(machine, module, LLVMObjectFile, &message, &object)) {
      status = gg_status_make(GG_STATUS_INTERNAL, "code generation failed: %s", message);
      LLVMDisposeMessage(message);
    } else {
      gg_text_append(out, LLVMGetBufferStart(object), LLVMGetBufferSize(object));
      LLVMDisposeMemoryBuffer(object);
    }
  }
  if (machine) LLVMDisposeTargetMachine(machine);
  LLVMDisposeMessage(features);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(triple);
  return status;
}

// ld.lld -shared object -o library, with the linker the AMD backend uses too.
static gg_status link_shared(const char* object, const char* library) {
  char toolkit[PATH_MAX], lld[PATH_MAX + 32];
  GG_RETURN_IF_ERROR(gg_amdgpu_toolkit(toolkit, sizeof toolkit));
  snprintf(lld, sizeof lld, "%s/llvm/bin/ld.lld", toolkit);
  char* argv[] = {lld, "-shared", "--as-needed", "-z", "noexecstack", "-o", (char*)library,
                  (char*)object, NULL};
  pid_t pid;
  int error = posix_spawn(&pid, lld, NULL, NULL, argv, environ);
  if (error) return gg_status_make(GG_STATUS_UNAVAILABLE, "cannot run %s: %s", lld, strerror(error));
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0)
    if (errno != EINTR) return gg_status_make(GG_STATUS_INTERNAL, "waiting for ld.lld failed");
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0)
    return gg_status_make(GG_STATUS_INTERNAL, "ld.lld failed linking %s", library);
  return GG_OK;
}

// Links object bytes into a shared object in a private temporary directory.
static gg_status link_object(const gg_text* object, gg_text* out) {
  const char* tmp = getenv("TMPDIR");
  char dir[PATH_MAX], object_path[PATH_MAX + 16], library_path[PATH_MAX + 16];
  snprintf(dir, sizeof dir, "%s/gg-link-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir))
    return gg_status_make(GG_STATUS_IO, "cannot make a temporary directory: %s", strerror(errno));
  snprintf(object_path, sizeof object_path, "%s/kernel.o", dir);
  snprintf(library_path, sizeof library_path, "%s/kernel.so", dir);
  gg_status status = gg_file_write(object_path, object->data, object->length);
  if (!status) status = link_shared(object_path, library_path);
  if (!status) status = gg_file_read(library_path, out);
  unlink(object_path);
  unlink(library_path);
  rmdir(dir);
  return status;
}

// A shared object of a module in the LLVM dialect.
static gg_status host_library(MlirOperation module, gg_text* out) {
  LLVMContextRef llvm_ctx = LLVMContextCreate();
  LLVMModuleRef llvm_module = mlirTranslateModuleToLLVMIR(module, llvm_ctx);
  gg_status status = GG_OK;
  gg_text object;
  gg_text_init(&object);
  if (!llvm_module) status = gg_status_make(GG_STATUS_INTERNAL, "translating to LLVM IR failed");
  if (!status) status = emit_object(llvm_module, &object);
  if (!status) status = link_object(&object, out);
  gg_text_free(&object);
  if (llvm_module) LLVMDisposeModule(llvm_module);
  LLVMContextDispose(llvm_ctx);
  return status;
}

// ---------------------------------------------------------------------------------------
// The host row of the target table (compiler/target.c).

gg_status gg_host_pipeline(const gg_op_desc* desc, gg_stage stage, char* buffer, size_t size) {
  (void)desc;
  switch (stage) {
    case GG_STAGE_TILES: snprintf(buffer, size, "gg-tile-level"); break;
    case GG_STAGE_TARGET: snprintf(buffer, size, "gg-tile-level,gg-to-host"); break;
    case GG_STAGE_LLVM_DIALECT:
    case GG_STAGE_LLVM_IR:
    case GG_STAGE_BINARY: snprintf(buffer, size, "gg-to-llvm"); break;  // binary: a .so
    default:
      return gg_status_make(GG_STATUS_UNIMPLEMENTED,
                            "the host target has no %s artifact: its kernels are JIT-compiled "
                            "(emit llvm for the code)",
                            gg_stage_name(stage));
  }
  return GG_OK;
}

gg_status gg_host_emit(MlirOperation module, const char* name, gg_stage stage, gg_text* out) {
  if (stage == GG_STAGE_BINARY) return host_library(module, out);
  return gg_llvm_ir_text(module, name, out);
}

gg_stage gg_host_artifact_stage(const gg_op_desc* desc) {
  (void)desc;
  return GG_STAGE_BINARY;  // the shared object
}
