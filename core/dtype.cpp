#include "core/dtype.hpp"

namespace roofsim {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  int bits;
};
constexpr DTypeInfo kInfo[] = {
    {DType::fp32, "fp32", 32}, {DType::tf32, "tf32", 32}, {DType::bf16, "bf16", 16},
    {DType::fp16, "fp16", 16}, {DType::fp8, "fp8", 8},    {DType::int8, "int8", 8},
    {DType::int4, "int4", 4},
};
const DTypeInfo& info(DType t) { return kInfo[static_cast<int>(t)]; }
}  // namespace

int dtype_bits(DType t) { return info(t).bits; }
double dtype_bytes(DType t) { return info(t).bits / 8.0; }
std::string_view dtype_name(DType t) { return info(t).name; }

bool parse_dtype(std::string_view name, DType& out) {
  for (const auto& i : kInfo) {
    if (i.name == name) {
      out = i.type;
      return true;
    }
  }
  return false;
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> all = [] {
    std::vector<DType> v;
    for (const auto& i : kInfo) v.push_back(i.type);
    return v;
  }();
  return all;
}

std::string dtype_list() {
  std::string s;
  for (const auto& i : kInfo) {
    if (!s.empty()) s += ", ";
    s += i.name;
  }
  return s;
}

}  // namespace roofsim
