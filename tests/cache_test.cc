// The compile cache: one compile when 8 threads ask at once, disk hits across contexts,
// and corrupt, truncated, foreign or garbage files rejected, deleted and rebuilt, never
// loaded; so are FIFOs, symbolic links, huge payload claims and entries others could
// have written, and a cache directory others can write is not used at all. Every kernel
// the cache hands out is run and checked against the reference.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/disk_cache.h"
#include "gg/gg.h"
#include "tests/support/api_case.h"

namespace {

using gg_test::ApiCase;
using gg_test::Spec;

struct Log {
  std::mutex mutex;
  std::vector<std::string> lines;
  static void Callback(void* user, gg_log_level, const char* message) {
    Log* log = static_cast<Log*>(user);
    std::lock_guard<std::mutex> lock(log->mutex);
    log->lines.push_back(message);
  }
  bool Contains(const std::string& needle) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const std::string& line : lines)
      if (line.find(needle) != std::string::npos) return true;
    return false;
  }
};

std::string FreshDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(root ? root : "/tmp") + "/cache-" + name;
  std::string command = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return dir;
}

gg_context* Context(const std::string& dir, Log* log = nullptr) {
  gg_context_options options;
  gg_context_options_init(&options);
  options.cache_dir = dir.c_str();
  options.gpu = -1;
  if (log) {
    options.log = Log::Callback;
    options.log_user = log;
    options.log_level = GG_LOG_DEBUG;
  }
  gg_context* context = nullptr;
  EXPECT_EQ(gg_context_create(&options, &context), GG_OK);
  return context;
}

Spec Stacked(int64_t n) {
  Spec s;
  s.layout = GG_LAYOUT_SIZES;
  s.extents = {100, 0, 37};
  s.n = n;
  s.k = 256;
  s.data = GG_DATA_EXACT;
  s.seed = 5;
  return s;
}

gg_cache_stats Stats(gg_context* context) {
  gg_cache_stats stats;
  gg_context_cache_stats(context, &stats);
  return stats;
}

// Runs the spec through the context and checks the output.
void RunAndCheck(gg_context* context, const Spec& spec) {
  ApiCase c(spec);
  ASSERT_TRUE(c.ok());
  gg_status status = c.Call(context);
  ASSERT_EQ(status, GG_OK) << gg_status_message(status);
  c.ExpectMatchesReference();
}

// The single file a kernel lives in: the only .ggc file of a fresh directory.
std::string CacheFile(const std::string& dir) {
  std::string command = "ls '" + dir + "'/*.ggc 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  char line[4096] = "";
  std::string path;
  if (pipe && fgets(line, sizeof line, pipe)) path = line;
  if (pipe) pclose(pipe);
  while (!path.empty() && path.back() == '\n') path.pop_back();
  return path;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

TEST(Cache, EightThreadsOneCompile) {
  std::string dir = FreshDir("threads");
  Log log;
  gg_context* context = Context(dir, &log);
  Spec spec = Stacked(256);
  gg_op_desc desc = spec.desc();
  std::vector<gg_kernel*> kernels(8, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      gg_status status = gg_kernel_get(context, &desc, &kernels[t]);
      EXPECT_EQ(status, GG_OK) << gg_status_message(status);
      gg_status_free(status);
      RunAndCheck(context, spec);  // and launch concurrently
    });
  for (std::thread& t : threads) t.join();
  for (gg_kernel* k : kernels) EXPECT_EQ(k, kernels[0]) << "one kernel for one descriptor";
  gg_cache_stats stats = Stats(context);
  EXPECT_EQ(stats.compiles, 1u);
  EXPECT_EQ(stats.disk_hits, 0u);
  EXPECT_EQ(stats.memory_hits, 15u);  // 8 gets + 8 launches, one of which compiled
  EXPECT_TRUE(log.Contains("compiled gg_sizes"));
  gg_context_destroy(context);
}

TEST(Cache, EightThreadsFourDescriptors) {
  std::string dir = FreshDir("mixed");
  gg_context* context = Context(dir);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] { RunAndCheck(context, Stacked(128 * (1 + t % 4))); });
  for (std::thread& t : threads) t.join();
  gg_cache_stats stats = Stats(context);
  EXPECT_EQ(stats.compiles, 4u);
  EXPECT_EQ(stats.memory_hits, 4u);
  gg_context_destroy(context);

  // A second context (a new process, as far as the cache can tell) loads all four from disk,
  // again from 8 threads.
  context = Context(dir);
  threads.clear();
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] { RunAndCheck(context, Stacked(128 * (1 + t % 4))); });
  for (std::thread& t : threads) t.join();
  stats = Stats(context);
  EXPECT_EQ(stats.compiles, 0u);
  EXPECT_EQ(stats.disk_hits, 4u);
  EXPECT_EQ(stats.files_rejected, 0u);
  gg_context_destroy(context);
}

// The address space the process has mapped now, in bytes.
rlim_t AddressSpaceNow() {
  std::ifstream statm("/proc/self/statm");
  rlim_t pages = 0;
  statm >> pages;
  return pages * rlim_t(sysconf(_SC_PAGESIZE));
}

// Runs body in a thread with at most 1 GiB more address space than the process has now,
// so that reading an endless or huge entry fails instead of exhausting the machine. A body
// still running after 20 s fails the test and is woken by opening entry for writing (a
// reader blocked on a FIFO then sees its end); one that still runs (reading an endless
// file) ends the test binary.
void Bounded(const std::string& entry, const std::function<void()>& body) {
  struct rlimit saved, limit;
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
  limit = saved;
  limit.rlim_cur = std::min(saved.rlim_max, AddressSpaceNow() + (rlim_t(1) << 30));
  ASSERT_EQ(setrlimit(RLIMIT_AS, &limit), 0);
  std::future<void> done = std::async(std::launch::async, body);
  if (done.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    ADD_FAILURE() << "the lookup of " << entry << " took over 20 s";
    int fd = open(entry.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) close(fd);
    if (done.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
      std::fprintf(stderr, "the lookup of %s never ends; giving up\n", entry.c_str());
      std::fflush(nullptr);
      std::_Exit(1);
    }
  }
  done.get();
  EXPECT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
}

using Plant = std::function<void(const std::string& path, const std::string& good)>;

// Replaces the entry with damage(good bytes).
Plant Rewrite(std::string (*damage)(const std::string&)) {
  return [damage](const std::string& path, const std::string& good) {
    WriteAll(path, damage(good));
  };
}

// Makes the single cache file of a fresh directory, lets plant replace it (given its path
// and good bytes), then checks that a new context rejects it (logging reason), rebuilds
// once, runs correctly, and leaves a good file a third context loads. The rejecting
// context runs Bounded: neither a FIFO nor an endless file may hold it up.
void ExpectRejectedAndRebuilt(const std::string& name, const Plant& plant,
                              const std::string& reason = "") {
  std::string dir = FreshDir(name);
  Spec spec = Stacked(256);
  gg_context* context = Context(dir);
  RunAndCheck(context, spec);
  gg_context_destroy(context);
  std::string path = CacheFile(dir);
  ASSERT_FALSE(path.empty());
  std::string good = ReadAll(path);
  plant(path, good);

  Log log;
  context = Context(dir, &log);
  Bounded(path, [&] { RunAndCheck(context, spec); });
  gg_cache_stats stats = Stats(context);
  EXPECT_EQ(stats.files_rejected, 1u) << name;
  EXPECT_EQ(stats.compiles, 1u) << name;
  EXPECT_EQ(stats.disk_hits, 0u) << name;
  EXPECT_TRUE(log.Contains("cache: rejected")) << name;
  EXPECT_TRUE(log.Contains(reason)) << name << ": no \"" << reason << "\" in the log";
  gg_context_destroy(context);
  EXPECT_EQ(ReadAll(path), good) << "the rebuilt file is the same kernel";

  context = Context(dir);
  RunAndCheck(context, spec);
  stats = Stats(context);
  EXPECT_EQ(stats.disk_hits, 1u) << name;
  EXPECT_EQ(stats.compiles, 0u) << name;
  gg_context_destroy(context);
}

TEST(Cache, FlippedPayloadByteIsRejected) {
  ExpectRejectedAndRebuilt("flipped", Rewrite([](const std::string& good) {
    std::string bad = good;
    bad[bad.size() - 100] ^= 0x40;  // inside the shared object
    return bad;
  }), "checksum mismatch");
}

TEST(Cache, TruncatedFileIsRejected) {
  ExpectRejectedAndRebuilt("truncated", Rewrite([](const std::string& good) {
    return good.substr(0, good.size() / 2);
  }), "truncated or extended");
}

TEST(Cache, ExtendedFileIsRejected) {
  ExpectRejectedAndRebuilt(
      "extended", Rewrite([](const std::string& good) { return good + std::string(7, '\0'); }),
      "truncated or extended");
}

TEST(Cache, EmptyFileIsRejected) {
  ExpectRejectedAndRebuilt("empty", Rewrite([](const std::string&) { return std::string(); }),
                           "shorter than its header");
}

TEST(Cache, GarbageIsRejected) {
  ExpectRejectedAndRebuilt("garbage", Rewrite([](const std::string& good) {
    return std::string(good.size(), 'x');
  }), "not a gg cache file");
}

TEST(Cache, FileForAnotherKeyIsRejected) {
  // As if two keys hashed to one file name: a valid entry for another key.
  ExpectRejectedAndRebuilt("foreign", Rewrite([](const std::string& good) {
    std::string dir = FreshDir("foreign-source");
    const std::string payload = good.substr(good.size() / 2);
    EXPECT_EQ(gg_disk_cache_store(dir.c_str(), "another key", payload.data(), payload.size()),
              GG_OK);
    char path[4096];
    gg_disk_cache_path(dir.c_str(), "another key", path, sizeof path);
    return ReadAll(path);
  }), "for another key");
}

// Replaces the entry by a name of another kind, as an attacker or an accident might.
void Replace(const std::string& path, const std::function<int(const char*)>& make) {
  ASSERT_EQ(unlink(path.c_str()), 0);
  ASSERT_EQ(make(path.c_str()), 0) << path;
}

TEST(Cache, FifoEntryIsRejectedPromptly) {
  ExpectRejectedAndRebuilt("fifo", [](const std::string& path, const std::string&) {
    Replace(path, [](const char* p) { return mkfifo(p, 0600); });
  }, "not a regular file");
}

TEST(Cache, SymlinkToDevZeroIsRejected) {
  ExpectRejectedAndRebuilt("dev-zero", [](const std::string& path, const std::string&) {
    Replace(path, [](const char* p) { return symlink("/dev/zero", p); });
  }, "a symbolic link");
}

TEST(Cache, SymlinkToAValidEntryIsRejected) {
  std::string elsewhere = FreshDir("symlink-target");
  ASSERT_EQ(mkdir(elsewhere.c_str(), 0700), 0);
  std::string target = elsewhere + "/entry.ggc", good;
  ExpectRejectedAndRebuilt("symlink", [&](const std::string& path, const std::string& bytes) {
    good = bytes;
    WriteAll(target, bytes);
    ASSERT_EQ(chmod(target.c_str(), 0600), 0);
    Replace(path, [&](const char* p) { return symlink(target.c_str(), p); });
  }, "a symbolic link");
  EXPECT_EQ(ReadAll(target), good) << "the link was removed, not what it points to";
}

// Sets the little-endian header field at offset.
void SetField(std::string& file, size_t offset, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) file[offset + i] = char(uint8_t(value >> (8 * i)));
}

TEST(Cache, HugePayloadClaimsAreRejected) {
  // 2^60 bytes claimed by a short file.
  ExpectRejectedAndRebuilt("huge-claim", Rewrite([](const std::string& good) {
    std::string bad = good.substr(0, 4096);
    SetField(bad, 16, uint64_t(1) << 60, 8);
    return bad;
  }), "over the 1 GiB limit");
  // 2 GiB claimed by a (sparse) file of just that size: refused before it is read.
  ExpectRejectedAndRebuilt("huge-file", [](const std::string& path, const std::string& good) {
    uint64_t payload = uint64_t(2) << 30, key = uint8_t(good[12]) | uint8_t(good[13]) << 8;
    std::string header = good.substr(0, 32 + key);
    SetField(header, 16, payload, 8);
    WriteAll(path, header);
    ASSERT_EQ(truncate(path.c_str(), off_t(header.size() + payload)), 0);
  }, "over the 1 GiB limit");
}

TEST(Cache, EntryOthersCanWriteIsRejected) {
  ExpectRejectedAndRebuilt("mode-0666", [](const std::string& path, const std::string&) {
    ASSERT_EQ(chmod(path.c_str(), 0666), 0);
  }, "writable by group or others");
  ExpectRejectedAndRebuilt("mode-0620", [](const std::string& path, const std::string&) {
    ASSERT_EQ(chmod(path.c_str(), 0620), 0);
  }, "writable by group or others");
}

TEST(Cache, EntryOfAnotherUserIsRejected) {
  if (geteuid() != 0) GTEST_SKIP() << "only root can give a file to another user";
  ExpectRejectedAndRebuilt("owner", [](const std::string& path, const std::string&) {
    ASSERT_EQ(chown(path.c_str(), 65534, 65534), 0);
  }, "owned by another user");
}

size_t FileCount(const std::string& dir) {
  std::string listing;
  FILE* pipe = popen(("ls -A '" + dir + "'").c_str(), "r");
  char line[512];
  while (pipe && fgets(line, sizeof line, pipe)) listing += line;
  if (pipe) pclose(pipe);
  return size_t(std::count(listing.begin(), listing.end(), '\n'));
}

// Makes a cache directory holding one good entry, lets share open it to others (share
// returns the path to give the context), then checks that a new context uses neither the
// entry nor the directory: the reason is logged, two kernels are compiled in memory and
// run correctly, and the directory holds the same single, untouched file.
void ExpectDirectoryNotUsed(const std::string& name,
                            const std::function<std::string(const std::string&)>& share,
                            const std::string& reason) {
  std::string dir = FreshDir(name);
  Spec spec = Stacked(256);
  gg_context* context = Context(dir);
  RunAndCheck(context, spec);
  gg_context_destroy(context);
  std::string path = CacheFile(dir);
  ASSERT_FALSE(path.empty());
  struct stat before, after;
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  std::string cache_dir = share(dir);

  Log log;
  context = Context(cache_dir, &log);
  RunAndCheck(context, spec);
  RunAndCheck(context, Stacked(128));
  RunAndCheck(context, spec);
  gg_cache_stats stats = Stats(context);
  EXPECT_EQ(stats.disk_hits, 0u) << name;
  EXPECT_EQ(stats.compiles, 2u) << name;
  EXPECT_EQ(stats.memory_hits, 1u) << name;
  EXPECT_EQ(stats.files_rejected, 0u) << name;
  EXPECT_TRUE(log.Contains("cache: not using")) << name;
  EXPECT_TRUE(log.Contains(reason)) << name << ": no \"" << reason << "\" in the log";
  gg_context_destroy(context);
  ASSERT_EQ(stat(path.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino) << name << ": the entry was replaced";
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec) << name;
  EXPECT_EQ(FileCount(dir), 1u) << name << ": something was written";
}

TEST(Cache, DirectoryOthersCanWriteIsNotUsed) {
  for (mode_t mode : {0777, 0770, 0730}) {
    char name[32];
    std::snprintf(name, sizeof name, "shared-%o", unsigned(mode));
    ExpectDirectoryNotUsed(name, [mode](const std::string& dir) {
      EXPECT_EQ(chmod(dir.c_str(), mode), 0);
      return dir;
    }, "writable by group or others");
  }
  // A link is followed, but what it names must pass.
  ExpectDirectoryNotUsed("shared-link", [](const std::string& dir) {
    EXPECT_EQ(chmod(dir.c_str(), 0777), 0);
    EXPECT_EQ(symlink(dir.c_str(), (dir + "-link").c_str()), 0);
    return dir + "-link";
  }, "writable by group or others");
}

TEST(Cache, DirectoryOfAnotherUserIsNotUsed) {
  if (geteuid() != 0) GTEST_SKIP() << "only root can give a directory to another user";
  ExpectDirectoryNotUsed("other-owner", [](const std::string& dir) {
    EXPECT_EQ(chown(dir.c_str(), 65534, 65534), 0);
    return dir;
  }, "owned by another user");
  // Another user's link to the user's own directory: they could point it elsewhere.
  ExpectDirectoryNotUsed("other-owner-link", [](const std::string& dir) {
    EXPECT_EQ(symlink(dir.c_str(), (dir + "-link").c_str()), 0);
    EXPECT_EQ(lchown((dir + "-link").c_str(), 65534, 65534), 0);
    return dir + "-link";
  }, "a symbolic link owned by another user");
}

TEST(Cache, NewDirectoryIsPrivateAndALinkToOneIsUsed) {
  std::string dir = FreshDir("private");
  Spec spec = Stacked(256);
  gg_context* context = Context(dir + "/gg");
  RunAndCheck(context, spec);
  gg_context_destroy(context);
  struct stat st;
  ASSERT_EQ(stat((dir + "/gg").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  std::string link = FreshDir("private-link");
  ASSERT_EQ(symlink((dir + "/gg").c_str(), link.c_str()), 0);
  context = Context(link);
  RunAndCheck(context, spec);
  EXPECT_EQ(Stats(context).disk_hits, 1u);
  gg_context_destroy(context);
}

TEST(Cache, UnwritableDirectoryStillCompiles) {
  Log log;
  gg_context* context = Context("/proc/gg-cache-cannot-exist", &log);
  Spec spec = Stacked(128);
  RunAndCheck(context, spec);
  RunAndCheck(context, spec);
  gg_cache_stats stats = Stats(context);
  EXPECT_EQ(stats.compiles, 1u);
  EXPECT_EQ(stats.memory_hits, 1u);
  EXPECT_TRUE(log.Contains("cache: ")) << "the failed mkdir is logged";
  gg_context_destroy(context);
}

TEST(DiskCache, FileFormat) {
  std::string dir = FreshDir("format");
  const std::string payload = "payload bytes";
  ASSERT_EQ(gg_disk_cache_store(dir.c_str(), "key one", payload.data(), payload.size()), GG_OK);
  char path[4096];
  gg_disk_cache_path(dir.c_str(), "key one", path, sizeof path);
  std::string file = ReadAll(path);
  ASSERT_EQ(file.size(), 32u + 7u + payload.size());
  EXPECT_EQ(file.substr(0, 8), std::string("GGCACHE\0", 8));
  EXPECT_EQ(file[8], 1);                        // format version
  EXPECT_EQ(file[12], 7);                       // key length
  EXPECT_EQ(uint8_t(file[16]), payload.size());  // payload length
  uint64_t checksum = gg_fnv1a64(payload.data(), payload.size());
  for (int b = 0; b < 8; ++b) EXPECT_EQ(uint8_t(file[24 + b]), uint8_t(checksum >> (8 * b)));
  EXPECT_EQ(file.substr(32, 7), "key one");
  EXPECT_EQ(file.substr(39), payload);

  gg_text out;
  gg_text_init(&out);
  gg_disk_lookup lookup;
  char why[512];
  ASSERT_EQ(gg_disk_cache_load(dir.c_str(), "key one", &out, &lookup, why, sizeof why), GG_OK);
  EXPECT_EQ(lookup, GG_DISK_HIT);
  EXPECT_EQ(std::string(out.data, out.length), payload);
  gg_text_free(&out);
  gg_text_init(&out);
  ASSERT_EQ(gg_disk_cache_load(dir.c_str(), "key two", &out, &lookup, why, sizeof why), GG_OK);
  EXPECT_EQ(lookup, GG_DISK_MISS);
  EXPECT_EQ(out.length, 0u);
  gg_text_free(&out);
  EXPECT_EQ(FileCount(dir), 1u) << "no temporary files are left behind";
}

}  // namespace
