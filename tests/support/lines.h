// Descriptor lines (gg run's flags) for every layout x scaling x B layout gg takes, as the
// bundle suites build them: one problem per line, checked on every target.
#ifndef GG_TESTS_SUPPORT_LINES_H_
#define GG_TESTS_SUPPORT_LINES_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gg/op.h"
#include "tools/flags.h"

namespace gg_test {

// The problem of each layout (the demo's shapes).
inline const std::vector<std::string>& LayoutLines() {
  static const std::vector<std::string> lines = {
      "--op stacked --groups 0,1,130,64 --N 256 --K 512",
      "--op mm --ranks 2d3d --groups 64,0,200,17 --N 256 --K 384",
      "--op dynamic --groups 0,100,37,128 --M 128 --N 256 --K 256",
      "--op mm --ranks 3d3d --groups 100,100,100 --N 256 --K 256",
      "--op mm --ranks 3d2d --groups 8,504,128 --M 128 --K 256",
      "--op mm --ranks 2d2d --groups 16,512,128,368 --M 128 --N 256",
  };
  return lines;
}

// Every line with every scaling and B layout the descriptor rules accept, for target.
inline std::vector<std::string> EveryKernelLine(const char* target) {
  std::vector<std::string> out;
  for (const std::string& line : LayoutLines())
    for (const char* scaling : {"rowwise", "blockwise"})
      for (const char* b : {"plain", "preshuffled"}) {
        std::string full = line + " --scaling " + scaling + " --b " + b + " --target " + target;
        gg_flags f;
        int blank;
        if (gg_flags_parse_line(full.c_str(), "line", "host", &f, &blank) == 0) {
          gg_status status = gg_op_desc_validate(&f.desc);
          if (!status) out.push_back(full);
          gg_status_free(status);
        }
        gg_flags_free(&f);
      }
  return out;
}

// The parsed flags of a line (owned by the caller: gg_flags_free).
inline gg_flags Parse(const std::string& line) {
  gg_flags f;
  int blank;
  EXPECT_EQ(gg_flags_parse_line(line.c_str(), "line", "host", &f, &blank), 0) << line;
  return f;
}

}  // namespace gg_test

#endif  // GG_TESTS_SUPPORT_LINES_H_
