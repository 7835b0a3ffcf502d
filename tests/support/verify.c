// One problem checked end to end, whatever launches it (verify.h).
#include "tests/support/verify.h"
#include "runtime/clock.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/cuda.h"
#include "runtime/hash.h"
#include "tests/support/dl.h"



gg_status gg_verify_problem(const gg_problem* problem, gg_verify_launch_fn launch, void* user,
                            int repeat, int keep_output, gg_check_result* result) {
  if (repeat < 1) repeat = 1;
  int64_t count = gg_operand_shape_numel(&problem->shapes[GG_OPERAND_OUT]);
  size_t slots = (size_t)(count ? count : 1);
  uint16_t* got = problem->buffers[GG_OPERAND_OUT];
  uint16_t* want = malloc(slots * sizeof *want);
  double* bound = malloc(slots * sizeof *bound);
  double* times = malloc((size_t)repeat * sizeof *times);
  gg_status status = GG_OK;
  if (!want || !bound || !times) {
    status = gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  } else {
    gg_poison_bf16(want, count);
    for (int r = 0; r < repeat && !status; ++r) {
      gg_poison_bf16(got, count);  // every launch must write the whole output again
      double start = gg_now_ms();
      status = launch(user, problem, result);
      times[r] = gg_now_ms() - start;
    }
  }
  if (!status) {
    result->run_ms = times[0];
    result->median_ms = gg_median(times, (size_t)repeat);
    gg_reference_run(problem, want, bound);
    result->compare = gg_compare_outputs(got, want, bound, count, problem->data == GG_DATA_EXACT);
    result->passed = result->compare.mismatches == 0 && result->compare.unwritten == 0 &&
                     result->compare.clobbered == 0;
    result->checksum = gg_fnv1a64(got, (size_t)count * sizeof *got);
    result->m = problem->m;
    result->output_count = count;
    gg_op_desc_kernel_name(&problem->desc, result->kernel_name, sizeof result->kernel_name);
    if (keep_output) {
      result->output = malloc(slots * sizeof *got);
      result->expected = want;
      want = NULL;
      if (result->output) memcpy(result->output, got, (size_t)count * sizeof *got);
    }
  }
  free(times);
  free(want);
  free(bound);
  return status;
}

// Runs on the GPU through the API: operands copied to shared memory and the output back.
static gg_status gpu_launch(gg_verify_api* api, const gg_problem* p) {
  void* device[GG_OPERAND_COUNT] = {NULL};
  gg_status status = GG_OK;
  for (int i = 0; i < GG_OPERAND_COUNT && !status; ++i) {
    if (!p->buffers[i]) continue;
    status = gg_context_gpu_alloc(api->context, p->bytes[i], &device[i]);
    if (!status) memcpy(device[i], p->buffers[i], p->bytes[i]);
  }
  if (!status) {
    gg_dl_operands operands;
    gg_dl_wrap(p, device, (DLDevice){kDLROCM, 0}, &operands);
    status = gg_kernel_launch(api->context, api->kernel, operands.pointers, p->zeroing);
  }
  if (!status) memcpy(p->buffers[GG_OPERAND_OUT], device[GG_OPERAND_OUT], p->bytes[GG_OPERAND_OUT]);
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) gg_context_gpu_free(api->context, device[i]);
  return status;
}

// A problem's operands on CUDA device 0, and the graph replaying its launch.
struct gg_verify_cuda {
  gg_cuda_device* device;
  void* buffers[GG_OPERAND_COUNT];
  void* stream;
  void* graph;
};

void gg_verify_api_free(gg_verify_api* api) {
  struct gg_verify_cuda* c = api->cuda;
  if (!c) return;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) gg_cuda_free(c->device, c->buffers[i]);
  gg_cuda_graph_destroy(c->device, c->graph);
  gg_cuda_stream_destroy(c->device, c->stream);
  gg_cuda_device_close(c->device);
  free(c);
  api->cuda = NULL;
}

static gg_status cuda_setup(gg_verify_api* api, const gg_problem* p) {
  struct gg_verify_cuda* c = calloc(1, sizeof *c);
  if (!c) return gg_status_make(GG_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  api->cuda = c;
  GG_RETURN_IF_ERROR(gg_cuda_device_open(0, &c->device));
  for (int i = 0; i < GG_OPERAND_COUNT; ++i) {
    size_t extra = i == GG_OPERAND_OUT ? (size_t)api->out_offset : 0;
    if (p->buffers[i])
      GG_RETURN_IF_ERROR(gg_cuda_alloc(c->device, p->bytes[i] + extra, &c->buffers[i]));
  }
  return api->graph ? gg_cuda_stream_create(c->device, &c->stream) : GG_OK;
}

// Copies the operands (the output poisoned) in, launches, or replays the captured graph
// api->graph times back to back, waits, and copies the output back.
static gg_status cuda_launch(gg_verify_api* api, const gg_problem* p) {
  if (!api->cuda) GG_RETURN_IF_ERROR(cuda_setup(api, p));
  struct gg_verify_cuda* c = api->cuda;
  void* buffers[GG_OPERAND_COUNT];
  memcpy(buffers, c->buffers, sizeof buffers);
  if (buffers[GG_OPERAND_OUT]) buffers[GG_OPERAND_OUT] = (char*)buffers[GG_OPERAND_OUT] + api->out_offset;
  for (int i = 0; i < GG_OPERAND_COUNT; ++i)
    if (p->buffers[i])
      GG_RETURN_IF_ERROR(gg_cuda_copy_to_device(c->device, buffers[i], p->buffers[i], p->bytes[i]));
  gg_dl_operands operands;
  gg_dl_wrap(p, buffers, (DLDevice){kDLCUDA, 0}, &operands);
  if (!api->graph) {
    GG_RETURN_IF_ERROR(gg_kernel_launch(api->context, api->kernel, operands.pointers, p->zeroing));
  } else {
    if (!c->graph) {
      gg_launch_options options = {c->stream, 0};
      GG_RETURN_IF_ERROR(gg_cuda_capture_begin(c->device, c->stream));
      gg_status status = gg_kernel_launch_async(api->context, api->kernel, operands.pointers,
                                                p->zeroing, &options);
      gg_status ended = gg_cuda_capture_end(c->device, c->stream, &c->graph);
      if (status) {
        gg_status_free(ended);
        return status;
      }
      GG_RETURN_IF_ERROR(ended);
    }
    for (int i = 0; i < api->graph; ++i)
      GG_RETURN_IF_ERROR(gg_cuda_graph_launch(c->device, c->graph, c->stream));
    GG_RETURN_IF_ERROR(gg_cuda_stream_synchronize(c->device, c->stream));
  }
  return gg_cuda_copy_to_host(c->device, p->buffers[GG_OPERAND_OUT], buffers[GG_OPERAND_OUT],
                              p->bytes[GG_OPERAND_OUT]);
}

gg_status gg_verify_api_launch(void* user, const gg_problem* p, gg_check_result* result) {
  (void)result;
  gg_verify_api* api = user;
  if (gg_kernel_desc(api->kernel)->target == GG_TARGET_SM90A) return cuda_launch(api, p);
  if (gg_kernel_desc(api->kernel)->target != GG_TARGET_HOST) return gpu_launch(api, p);
  gg_dl_operands operands;
  gg_dl_wrap(p, p->buffers, (DLDevice){kDLCPU, 0}, &operands);
  return gg_kernel_launch(api->context, api->kernel, operands.pointers, p->zeroing);
}

void gg_check_result_free(gg_check_result* result) {
  free(result->output);
  free(result->expected);
  result->output = result->expected = NULL;
}
