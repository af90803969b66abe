#pragma once
// Numeric formats that matrix units, memories and tensors use.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace roofsim {

// nvfp4: NVIDIA's 4-bit format, E2M1 values with one fp8 E4M3 scale per 16 (4.5 bits a value);
// mxfp4: the OCP microscaling format, E2M1 values with one E8M0 scale per 32 (4.25 bits).
enum class DType { fp32, tf32, bf16, fp16, fp8, int8, int4, nvfp4, mxfp4 };

// Storage size per value in bits, shared scales included: int4 packs two values per byte,
// nvfp4 takes 4.5 and mxfp4 4.25 (always a multiple of 1/4 bit).
double dtype_bits(DType t);
double dtype_bytes(DType t);
// Bits of one value without its block's scale (4 for the fp4 formats): what a kernel's
// k-tile of so many bytes holds.
int dtype_value_bits(DType t);
// Bytes of `elements` values stored contiguously, rounded up to whole bytes (a tile's scales
// come with it: a block format's scale bytes are counted per value).
std::uint64_t dtype_storage_bytes(std::uint64_t elements, DType t);
// Whether every value takes whole bytes (no packing, no shared scales).
bool dtype_whole_bytes(DType t);
// Weight-only: 4- or 8-bit weights converted to the 16-bit activations' type in the GEMM.
bool weight_only_formats(DType activations, DType weights);
std::string_view dtype_name(DType t);
// Parses "bf16", "fp8", ... ; returns false for an unknown name.
bool parse_dtype(std::string_view name, DType& out);
const std::vector<DType>& all_dtypes();
// "fp32, tf32, bf16, ..." for error messages and --help.
std::string dtype_list();

// A weight format as a checkpoint stores it: the type and, for fp8 with block scales (DeepSeek-V3's
// and Qwen3's FP8 checkpoints: 128 x 128 blocks), the block's extent along K (0: per tensor).
struct WeightFormat {
  DType weights = DType::bf16;
  std::int64_t scale_block_k = 0;
  bool operator==(const WeightFormat& o) const { return weights == o.weights && scale_block_k == o.scale_block_k; }
  bool operator!=(const WeightFormat& o) const { return !(*this == o); }
};

}  // namespace roofsim
