#pragma once
// FNV-1a, 64 bits: a digest that tells changed bytes from the ones recorded (an edited input
// file, a damaged stored record). Not cryptographic: it guards against accidents, not attacks.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace roofsim {

inline constexpr std::uint64_t kFnvOffset = 1469598103934665603ull;

// Continues digest `h` over `bytes`.
inline std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = kFnvOffset) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The digest as 16 hex digits.
inline std::string digest_hex(std::uint64_t h) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

}  // namespace roofsim
