#pragma once
// The version a build reports and keys stored results by: "0.1.0+<git revision>", written at
// build time by cmake/build_version.cmake.
namespace roofsim {
extern const char* const kRoofsimBuildVersion;
}
