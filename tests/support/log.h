// A context's log lines, captured for the suites that check what the runtime said (tuning
// tables, autotuning): pass LogCapture::Capture as gg_context_options.log and the capture
// as its log_user.
#ifndef GG_TESTS_SUPPORT_LOG_H_
#define GG_TESTS_SUPPORT_LOG_H_

#include <string>
#include <vector>

#include "gg/gg.h"

namespace gg_test {

struct LogCapture {
  std::vector<std::string> lines;
  static void Capture(void* user, gg_log_level, const char* message) {
    static_cast<LogCapture*>(user)->lines.push_back(message);
  }
  // Lines that hold text.
  int Count(const std::string& text) const {
    int n = 0;
    for (const std::string& l : lines) n += l.find(text) != std::string::npos;
    return n;
  }
  bool Has(const std::string& text) const { return Count(text) > 0; }
  // Launches (GG_LOG_DEBUG's "launch NAME ...") of a kernel whose name holds `part`, e.g.
  // "_t256x64x128_".
  int Launched(const std::string& part) const {
    int n = 0;
    for (const std::string& l : lines) n += l.rfind("launch ", 0) == 0 && l.find(part) != std::string::npos;
    return n;
  }
};

}  // namespace gg_test

#endif  // GG_TESTS_SUPPORT_LOG_H_
