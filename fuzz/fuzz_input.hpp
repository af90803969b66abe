#pragma once
// Shared by the fuzz targets: the loaders take a path, so each input is written to a file of
// this process's own (several fuzzers may run at once), which is removed at exit.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace roofsim::fuzz {

// A folder of this process's own under the temporary directory, removed at exit. The path is
// never destroyed: the exit handler, registered before it is complete, runs after the
// destructors of statics constructed later.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path* const dir = [] {
    auto* d = new std::filesystem::path(std::filesystem::temp_directory_path() / ("roofsim-fuzz-" + std::to_string(::getpid())));
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return d;
  }();
  return *dir;
}

// Writes the input to scratch_dir()/name and returns its path.
inline std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path path = scratch_dir() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path.string();
}

}  // namespace roofsim::fuzz
