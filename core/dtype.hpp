#pragma once
// Numeric formats that matrix units, memories and tensors use.
#include <string>
#include <string_view>
#include <vector>

namespace roofsim {

enum class DType { fp32, tf32, bf16, fp16, fp8, int8, int4 };

// Storage size in bits (int4 packs two values per byte).
int dtype_bits(DType t);
double dtype_bytes(DType t);
std::string_view dtype_name(DType t);
// Parses "bf16", "fp8", ... ; returns false for an unknown name.
bool parse_dtype(std::string_view name, DType& out);
const std::vector<DType>& all_dtypes();
// "fp32, tf32, bf16, ..." for error messages and --help.
std::string dtype_list();

}  // namespace roofsim
