// Bundles on the host: every layout x scaling x B layout bundled and launched from the
// bundle, bit for bit equal to the compiled (JIT) path and to the reference; every kind of
// damaged or foreign bundle refused with a message that says what, nothing loaded; eight
// threads launching from one bundle; the entry points finding the bundled tile.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "gg/gg.h"
#include "runtime/bundle.h"
#include "runtime/hash.h"
#include "tests/reference/problem.h"
#include "tests/support/context.h"
#include "tests/support/dl.h"
#include "tests/support/lines.h"
#include "tests/support/verify.h"

namespace {

using Bytes = std::vector<uint8_t>;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string Take(gg_status status) {
  std::string text = status ? gg_status_message(status) : "ok";
  gg_status_free(status);
  return text;
}

using gg_test::MemoryContext;

// Writes a bundle of the lines' descriptors; returns its path.
std::string WriteBundle(const std::string& name, const std::vector<std::string>& lines) {
  std::vector<gg_op_desc> descs;
  std::vector<const char*> flags;
  for (const std::string& line : lines) {
    gg_flags f = gg_test::Parse(line);
    descs.push_back(f.desc);
    flags.push_back(line.c_str());
    gg_flags_free(&f);
  }
  std::string path = TempPath(name);
  gg_status status = gg_bundle_write(path.c_str(), descs.data(), flags.data(), descs.size(), 2);
  EXPECT_EQ(status, GG_OK) << Take(status);
  return path;
}

Bytes ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// Runs one line's problem with a kernel of the context; the output and the check.
struct LineRun {
  gg_check_result result = {};
  std::vector<uint16_t> output;
  std::string error;
};

LineRun RunLine(gg_context* context, const std::string& line, uint64_t seed = 7) {
  LineRun run;
  gg_flags f = gg_test::Parse(line);
  f.seed = seed;
  gg_problem_spec spec = gg_flags_problem(&f);
  gg_problem* problem = nullptr;
  gg_status status = gg_problem_create(&spec, &problem);
  gg_kernel* kernel = nullptr;
  if (!status) status = gg_kernel_get(context, &problem->desc, &kernel);
  gg_verify_api api = {context, kernel, 0, NULL, 0};
  if (!status) status = gg_verify_problem(problem, gg_verify_api_launch, &api, 1, 1, &run.result);
  if (status) run.error = Take(status);
  else run.output.assign(run.result.output, run.result.output + run.result.output_count);
  gg_check_result_free(&run.result);
  gg_problem_destroy(problem);
  gg_flags_free(&f);
  return run;
}

const std::vector<std::string>& HostLines() {
  static const std::vector<std::string> lines = gg_test::EveryKernelLine("host");
  return lines;
}

const std::string& HostBundle() {
  static const std::string path = WriteBundle("host.ggb", HostLines());
  return path;
}

TEST(Bundle, EveryHostKernelRoundTripsBitForBit) {
  ASSERT_GE(HostLines().size(), 18u);  // 6 layouts x 2 scalings + 4 preshuffled x 2, less 3D-2D blockwise
  gg_context* bundled = MemoryContext({HostBundle()});
  gg_context* compiled = MemoryContext();
  ASSERT_TRUE(bundled && compiled);
  EXPECT_EQ(gg_context_bundle_kernel_count(bundled), HostLines().size());
  for (const std::string& line : HostLines()) {
    SCOPED_TRACE(line);
    LineRun from_bundle = RunLine(bundled, line), from_compiler = RunLine(compiled, line);
    ASSERT_EQ(from_bundle.error, "");
    ASSERT_EQ(from_compiler.error, "");
    EXPECT_TRUE(from_bundle.result.passed);
    EXPECT_TRUE(from_compiler.result.passed);
    EXPECT_EQ(from_bundle.output, from_compiler.output);
  }
  gg_cache_stats stats;
  gg_context_cache_stats(bundled, &stats);
  EXPECT_EQ(stats.bundle_hits, HostLines().size());
  EXPECT_EQ(stats.compiles, 0u);
  gg_context_cache_stats(compiled, &stats);
  EXPECT_EQ(stats.compiles, HostLines().size());
  EXPECT_EQ(stats.bundle_hits, 0u);
  gg_context_destroy(bundled);
  gg_context_destroy(compiled);
}

TEST(Bundle, ListsItsKernelsWithTheirFlags) {
  gg_context* context = MemoryContext({HostBundle()});
  ASSERT_TRUE(context);
  for (size_t i = 0; i < HostLines().size(); ++i) {
    gg_bundle_kernel_info info;
    ASSERT_EQ(gg_context_bundle_kernel(context, i, &info), GG_OK);
    EXPECT_EQ(std::string(info.flags), HostLines()[i]);
    EXPECT_EQ(std::string(info.bundle), HostBundle());
    char name[256];
    gg_op_desc_kernel_name(&info.desc, name, sizeof name);
    EXPECT_EQ(std::string(info.name), name);
  }
  gg_bundle_kernel_info info;
  EXPECT_NE(Take(gg_context_bundle_kernel(context, HostLines().size(), &info)), "ok");
  gg_context_destroy(context);
}

// The entry points pick the tile a bundle built with the defaults holds: no compile.
TEST(Bundle, EntryPointsFindTheBundledTile) {
  const std::string line = HostLines()[0];  // stacked, rowwise, plain
  std::string path = WriteBundle("entry.ggb", {line});
  gg_context* context = MemoryContext({path});
  ASSERT_TRUE(context);
  gg_flags f = gg_test::Parse(line);
  gg_problem_spec spec = gg_flags_problem(&f);
  gg_problem* p;
  ASSERT_EQ(gg_problem_create(&spec, &p), GG_OK);
  gg_dl_operands t;
  gg_dl_wrap(p, p->buffers, DLDevice{kDLCPU, 0}, &t);
  gg_status status = gg_f8f8bf16_rowwise_grouped_stacked(
      context, t.pointers[0], t.pointers[1], t.pointers[2], t.pointers[3], t.pointers[4],
      &t.tensors[GG_OPERAND_OUT]);
  EXPECT_EQ(status, GG_OK) << Take(status);
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  EXPECT_EQ(stats.bundle_hits, 1u);
  EXPECT_EQ(stats.compiles, 0u);
  gg_problem_destroy(p);
  gg_flags_free(&f);
  gg_context_destroy(context);
}

// Host kernels load from memory files: with nowhere to write (as on a read-only
// filesystem), bundled kernels still load and run.
TEST(Bundle, HostKernelsLoadWithoutWritingAFile) {
  const std::string& path = HostBundle();
  const char* saved = std::getenv("TMPDIR");
  std::string old = saved ? saved : "";
  setenv("TMPDIR", "/nonexistent/gg-nowhere", 1);
  gg_context* context = MemoryContext({path});
  ASSERT_TRUE(context);
  LineRun run = RunLine(context, HostLines()[2]);
  EXPECT_EQ(run.error, "");
  EXPECT_TRUE(run.result.passed);
  gg_context_destroy(context);
  if (saved) setenv("TMPDIR", old.c_str(), 1);
  else unsetenv("TMPDIR");
}

TEST(Bundle, EightThreadsLaunchFromOneBundle) {
  gg_context* context = MemoryContext({HostBundle()});
  ASSERT_TRUE(context);
  const std::vector<std::string>& lines = HostLines();
  std::vector<std::string> failures(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      // All eight start on one kernel at once, then each takes every eighth line.
      std::vector<size_t> mine = {0};
      for (size_t i = size_t(t); i < lines.size(); i += 8) mine.push_back(i);
      for (size_t i : mine) {
        LineRun run = RunLine(context, lines[i], uint64_t(t + 1));
        if (!run.error.empty() || !run.result.passed) failures[t] += lines[i] + ": " + run.error + "\n";
      }
    });
  for (std::thread& thread : threads) thread.join();
  for (const std::string& failure : failures) EXPECT_EQ(failure, "");
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  EXPECT_EQ(stats.bundle_hits, lines.size());  // each kernel loaded once
  EXPECT_EQ(stats.compiles, 0u);
  gg_context_destroy(context);
}

// ---------------------------------------------------------------------------------------
// Refusals. A small bundle of two kernels, its sections found by walking the format.

const Bytes& Small() {
  static const Bytes bytes = ReadFile(WriteBundle("small.ggb", {HostLines()[0], HostLines()[1]}));
  return bytes;
}

uint64_t Le(const Bytes& b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t(b[at + size_t(i)]) << (8 * i);
  return v;
}

void PutLe(Bytes& b, size_t at, int n, uint64_t v) {
  for (int i = 0; i < n; ++i) b[at + size_t(i)] = uint8_t(v >> (8 * i));
}

struct Layout {
  size_t header_sum;             // where the header's checksum is
  std::vector<size_t> records;  // where each record starts
  size_t trailer;
};

size_t HeaderSum(const Bytes& b) {
  size_t at = 24;
  for (int s = 0; s < 4; ++s) at += 4 + Le(b, at, 4);
  return at;
}

Layout Sections(const Bytes& b) {
  Layout l;
  l.header_sum = HeaderSum(b);
  size_t at = l.header_sum + 8;
  for (uint64_t i = 0, n = Le(b, 12, 4); i < n; ++i) {
    l.records.push_back(at);
    at += Le(b, at + 4, 8);
  }
  l.trailer = at;
  return l;
}

// Rewrites the size, the header's checksum and the whole's after an edit.
void Reseal(Bytes& b) {
  PutLe(b, 16, 8, b.size());
  size_t sum = HeaderSum(b);
  PutLe(b, sum, 8, gg_fnv1a64(b.data(), sum));
  PutLe(b, b.size() - 8, 8, gg_fnv1a64(b.data(), b.size() - 8));
}

// What decoding says of the bytes ("ok" when they load).
std::string Decode(const Bytes& bytes, gg_status_code* code = nullptr) {
  uint8_t* copy = static_cast<uint8_t*>(malloc(bytes.size() ? bytes.size() : 1));
  if (!bytes.empty()) memcpy(copy, bytes.data(), bytes.size());
  gg_bundle* bundle = nullptr;
  gg_status status = gg_bundle_decode(copy, bytes.size(), &bundle);
  if (code) *code = gg_status_code_of(status);
  EXPECT_EQ(bundle == nullptr, status != GG_OK);
  gg_bundle_free(bundle);
  return Take(status);
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(BundleRefusal, TheSmallBundleLoads) {
  EXPECT_EQ(Decode(Small()), "ok");
  Layout l = Sections(Small());
  EXPECT_EQ(l.records.size(), 2u);
  EXPECT_EQ(l.trailer, Small().size() - 16);
}

TEST(BundleRefusal, TruncatedAtEverySectionBoundary) {
  const Bytes& b = Small();
  Layout l = Sections(b);
  std::vector<size_t> cuts = {0, 7, 8, 12, 16, 23, 24, l.header_sum, l.header_sum + 8, l.trailer,
                              l.trailer + 8, b.size() - 1};
  for (size_t r : l.records) {
    cuts.push_back(r);
    cuts.push_back(r + 12);
    cuts.push_back(r + 100);
  }
  for (size_t cut : cuts) {
    std::string message = Decode(Bytes(b.begin(), b.begin() + long(cut)));
    EXPECT_TRUE(Has(message, "truncated") || Has(message, "too short")) << cut << ": " << message;
  }
  // Longer than the header says.
  Bytes longer = b;
  longer.push_back(0);
  EXPECT_TRUE(Has(Decode(longer), "extended")) << Decode(longer);
}

TEST(BundleRefusal, OneFlippedBytePerSectionIsNamed) {
  const Bytes& b = Small();
  Layout l = Sections(b);
  struct Case {
    size_t at;
    std::string says;
  };
  std::vector<Case> cases = {{30, "header"}, {l.header_sum + 3, "header"},
                             {l.trailer + 3, "end of the bundle"},
                             {b.size() - 3, "checksum of the whole"}};
  for (size_t i = 0; i < l.records.size(); ++i) {
    size_t end = i + 1 < l.records.size() ? l.records[i + 1] : l.trailer;
    std::string name = "kernel " + std::to_string(i);
    cases.push_back({l.records[i] + 40, name});               // in its key
    cases.push_back({(l.records[i] + end) / 2, name});         // in its code
    cases.push_back({end - 2, name});                          // in its checksum
  }
  for (const Case& c : cases) {
    Bytes flipped = b;
    flipped[c.at] ^= 0x10;
    std::string message = Decode(flipped);
    EXPECT_TRUE(Has(message, c.says)) << "byte " << c.at << ": " << message;
  }
}

TEST(BundleRefusal, MagicVersionTargetDuplicatesAndEmpty) {
  Bytes b = Small();
  Bytes magic = b;
  magic[0] = 'X';
  EXPECT_TRUE(Has(Decode(magic), "not a gg bundle")) << Decode(magic);

  // Another format version, newer or older (version 1's sm_90a kernels took A in one
  // tile_m-row box): refused, with the way out.
  for (uint32_t version : {GG_BUNDLE_FORMAT_VERSION + 1, GG_BUNDLE_FORMAT_VERSION - 1}) {
    Bytes other = b;
    PutLe(other, 8, 4, version);
    gg_status_code code;
    std::string message = Decode(other, &code);
    EXPECT_EQ(code, GG_STATUS_UNIMPLEMENTED);
    EXPECT_TRUE(Has(message, "format version " + std::to_string(version)) &&
                Has(message, "reads version " + std::to_string(GG_BUNDLE_FORMAT_VERSION)) &&
                Has(message, "rebuild it with this gg"))
        << message;
  }

  // A target this gg does not know ("host" becomes "hoxt"), resealed.
  Bytes target = b;
  size_t at = 24;
  for (int s = 0; s < 2; ++s) at += 4 + Le(target, at, 4);
  ASSERT_EQ(std::string(reinterpret_cast<const char*>(&target[at + 4])), "host");
  target[at + 6] = 'x';
  Reseal(target);
  EXPECT_TRUE(Has(Decode(target), "'hoxt' is not one this gg knows")) << Decode(target);

  // Kernels of another target than the bundle's: host records under a gfx950 header.
  gg_op_desc amd = {};
  amd.layout = GG_LAYOUT_BATCHED;
  amd.fp8 = GG_FP8_E4M3FN;
  amd.n = amd.k = 128;
  amd.g = 1;
  amd.target = GG_TARGET_GFX950;
  std::string amd_path = TempPath("gfx950.ggb");
  ASSERT_EQ(Take(gg_bundle_write(amd_path.c_str(), &amd, nullptr, 1, 1)), "ok");
  Bytes foreign = ReadFile(amd_path);
  Layout fl = Sections(foreign), hl = Sections(b);
  foreign.resize(fl.records[0]);
  foreign.insert(foreign.end(), b.begin() + long(hl.records[0]), b.end());
  PutLe(foreign, 12, 4, 2);
  Reseal(foreign);
  EXPECT_TRUE(Has(Decode(foreign), "is for host, the bundle for gfx950")) << Decode(foreign);

  // Two records of one kernel.
  Layout l = Sections(b);
  Bytes twice(b.begin(), b.begin() + long(l.records[1]));
  twice.insert(twice.end(), b.begin() + long(l.records[0]), b.begin() + long(l.records[1]));
  twice.insert(twice.end(), b.begin() + long(l.trailer), b.end());
  Reseal(twice);
  EXPECT_TRUE(Has(Decode(twice), "kernels 0 and 1 are both")) << Decode(twice);

  // No kernels at all.
  Bytes empty(b.begin(), b.begin() + long(l.records[0]));
  PutLe(empty, 12, 4, 0);
  empty.insert(empty.end(), b.begin() + long(l.trailer), b.end());
  Reseal(empty);
  EXPECT_TRUE(Has(Decode(empty), "holds no kernels")) << Decode(empty);

  // A count the bytes cannot hold is refused before anything is allocated for it.
  Bytes many = b;
  PutLe(many, 12, 4, 999999);
  Reseal(many);
  EXPECT_TRUE(Has(Decode(many), "more than its bytes can hold")) << Decode(many);
}

// A record whose metadata disagrees with its code, with checksums made right.
TEST(BundleRefusal, LaunchMetadataMustMatchTheCode) {
  Bytes b = Small();
  Layout l = Sections(b);
  size_t at = l.records[0] + 12;
  for (int s = 0; s < 3; ++s) at += 4 + Le(b, at, 4);  // key, name, flags
  at += 3 * 26;                                         // the grid rules
  PutLe(b, at, 4, Le(b, at, 4) + 1);                    // block[0]
  size_t end = l.records[1];
  PutLe(b, end - 8, 8, gg_fnv1a64(b.data() + l.records[0], end - 8 - l.records[0]));
  Reseal(b);
  EXPECT_TRUE(Has(Decode(b), "launch metadata disagrees with its code")) << Decode(b);
}

TEST(BundleRefusal, ContextsLoadNothingOfARefusedBundle) {
  gg_context* context = MemoryContext();
  ASSERT_TRUE(context);
  Bytes flipped = Small();
  flipped[flipped.size() / 2] ^= 1;
  std::string path = TempPath("flipped.ggb");
  WriteFile(path, flipped);
  EXPECT_TRUE(Has(Take(gg_context_load_bundle(context, path.c_str())), path));
  EXPECT_EQ(gg_context_bundle_kernel_count(context), 0u);

  gg_status status = gg_context_load_bundle(context, TempPath("missing.ggb").c_str());
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_NOT_FOUND);
  gg_status_free(status);

  std::string fifo = TempPath("fifo.ggb");
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(Has(Take(gg_context_load_bundle(context, fifo.c_str())), "not a regular file"));
  EXPECT_TRUE(Has(Take(gg_context_load_bundle(context, TempPath("").c_str())), "not a regular file"));

  // Host kernels built for other CPU features.
  std::string path_small = TempPath("small.ggb");
  gg_bundle* bundle;
  uint8_t* copy = static_cast<uint8_t*>(malloc(Small().size()));
  memcpy(copy, Small().data(), Small().size());
  ASSERT_EQ(gg_bundle_decode(copy, Small().size(), &bundle), GG_OK);
  gg_bundle_header header = bundle->header;
  header.cpu = "x86 1:00000000.00000000";
  gg_text text;
  gg_text_init(&text);
  ASSERT_EQ(gg_bundle_encode(&header, bundle->kernels, bundle->count, &text), GG_OK);
  std::string other_cpu = TempPath("other-cpu.ggb");
  WriteFile(other_cpu, Bytes(text.data, text.data + text.length));
  gg_text_free(&text);
  gg_bundle_free(bundle);
  status = gg_context_load_bundle(context, other_cpu.c_str());
  EXPECT_EQ(gg_status_code_of(status), GG_STATUS_UNAVAILABLE);
  EXPECT_TRUE(Has(Take(status), "compiled for a CPU with other features"));
  EXPECT_EQ(gg_context_bundle_kernel_count(context), 0u);

  // A file others can write: whoever can write it can run code here.
  std::string shared = TempPath("shared.ggb");
  WriteFile(shared, Small());
  ASSERT_EQ(chmod(shared.c_str(), 0666), 0);
  EXPECT_TRUE(Has(Take(gg_context_load_bundle(context, shared.c_str())), "writable by group or others"));
  EXPECT_EQ(gg_context_bundle_kernel_count(context), 0u);

  // The same kernels twice.
  ASSERT_EQ(gg_context_load_bundle(context, path_small.c_str()), GG_OK);
  EXPECT_TRUE(Has(Take(gg_context_load_bundle(context, path_small.c_str())), "already loaded from"));
  EXPECT_EQ(gg_context_bundle_kernel_count(context), 2u);
  gg_context_destroy(context);

  // A context whose bundle does not load is not made.
  gg_context_options options;
  gg_context_options_init(&options);
  const char* bad[1] = {path.c_str()};
  options.bundles = bad;
  options.bundle_count = 1;
  gg_context* none = nullptr;
  EXPECT_NE(Take(gg_context_create(&options, &none)), "ok");
  EXPECT_EQ(none, nullptr);
}

TEST(BundleRefusal, WritingRefusesMixedTargetsBadDescriptorsAndWritesNothing) {
  gg_flags host = gg_test::Parse(HostLines()[0]);
  gg_op_desc descs[2] = {host.desc, host.desc};
  descs[1].target = GG_TARGET_GFX950;
  descs[1].fp8 = GG_FP8_E4M3FN;
  std::string path = TempPath("refused.ggb");
  unlink(path.c_str());
  EXPECT_TRUE(Has(Take(gg_bundle_write(path.c_str(), descs, nullptr, 2, 0)), "a bundle holds one target"));
  descs[1] = host.desc;
  descs[1].k = 17;
  EXPECT_TRUE(Has(Take(gg_bundle_write(path.c_str(), descs, nullptr, 2, 0)), "kernel 1"));
  EXPECT_NE(Take(gg_bundle_write(path.c_str(), descs, nullptr, 0, 0)), "ok");
  EXPECT_NE(access(path.c_str(), F_OK), 0);
  // An unwritable place: an error, no file, no temporary left behind.
  std::string nowhere = TempPath("no-such-dir/x.ggb");
  EXPECT_NE(Take(gg_bundle_write(nowhere.c_str(), descs, nullptr, 1, 1)), "ok");
  gg_flags_free(&host);
}

}  // namespace
