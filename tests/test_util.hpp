#pragma once
// Helpers for tests that feed roofsim a configuration file.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "core/presets.hpp"
#include "experiment/progress.hpp"

namespace roofsim::test {

// For tests that read every simulated step's op records (an inference run keeps only its first
// steps' unless asked).
inline RunControl every_op() {
  RunControl c;
  c.keep_every_op = true;
  return c;
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string preset_text(const std::string& kind, const std::string& name) {
  return read_file(resolve_preset(kind, name));
}

// Writes `text` to a fresh file under /tmp and returns its path; each test process gets its
// own name so that parallel ctest runs do not collide.
inline std::string write_temp(const std::string& text, const std::string& stem = "cfg") {
  static int counter = 0;
  // A stem of "config" writes a Hugging Face style config.json.
  const std::string ext = stem == "config" ? ".json" : ".toml";
  std::string path = "/tmp/roofsim_test_" + std::to_string(::getpid()) + "_" + stem + "_" +
                     std::to_string(counter++) + ext;
  std::ofstream(path) << text;
  return path;
}

// Replaces the first occurrence of `from` (which must exist) with `to`.
inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  auto pos = text.find(from);
  if (pos == std::string::npos) return "REPLACE_FAILED: " + from;
  return text.replace(pos, from.size(), to);
}

}  // namespace roofsim::test
