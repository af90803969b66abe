#pragma once
// toml++ configuration for ROOFSIM_FUZZ builds (TOML_CONFIG_HEADER, set in the top
// CMakeLists.txt): toml++ is compiled into the program there, with its internal assertions off
// as in the shared library roofsim links otherwise. toml++ 3.3.0 asserts a precondition in
// parse_key() that malformed table headers ("[;x]", "[[[1]]]") break; the parser reports them
// as syntax errors all the same (fixed upstream: marzer/tomlplusplus#301). See fuzz/README.md.
#define TOML_ASSERT(expr) static_assert(true)
