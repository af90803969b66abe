#include "core/dtype.hpp"

namespace roofsim {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  int quarter_bits;  // storage per value, scales included, in 1/4 bits
  int value_bits;
};
constexpr DTypeInfo kInfo[] = {
    {DType::fp32, "fp32", 128, 32}, {DType::tf32, "tf32", 128, 32}, {DType::bf16, "bf16", 64, 16},
    {DType::fp16, "fp16", 64, 16},  {DType::fp8, "fp8", 32, 8},     {DType::int8, "int8", 32, 8},
    {DType::int4, "int4", 16, 4},
    // 16 values x 4 bits + an 8-bit E4M3 scale = 72 bits per 16 values.
    {DType::nvfp4, "nvfp4", 18, 4},
    // 32 values x 4 bits + an 8-bit E8M0 scale = 136 bits per 32 values.
    {DType::mxfp4, "mxfp4", 17, 4},
};
const DTypeInfo& info(DType t) { return kInfo[static_cast<int>(t)]; }
}  // namespace

double dtype_bits(DType t) { return info(t).quarter_bits / 4.0; }
double dtype_bytes(DType t) { return info(t).quarter_bits / 32.0; }
int dtype_value_bits(DType t) { return info(t).value_bits; }
std::uint64_t dtype_storage_bytes(std::uint64_t elements, DType t) {
  return (elements * static_cast<std::uint64_t>(info(t).quarter_bits) + 31) / 32;
}
bool dtype_whole_bytes(DType t) { return info(t).quarter_bits % 32 == 0; }
bool weight_only_formats(DType activations, DType weights) {
  return (activations == DType::bf16 || activations == DType::fp16) &&
         (weights == DType::int8 || weights == DType::int4 || weights == DType::mxfp4 || weights == DType::nvfp4);
}
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
