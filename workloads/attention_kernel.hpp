#pragma once
// Attention kernels as a registry: how a layer's attention becomes ops (flash attention on the
// matrix units, scores through HBM, decode on the vector units, ...). Each lives in
// workloads/attention_kernels/NAME.cpp, which defines register_attention_kernels_NAME(registry);
// CMake finds the files and generates the list that calls them, so adding a kernel is one new
// file plus its test.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "workloads/graph.hpp"

namespace roofsim {

struct Precision {
  DType weights = DType::bf16;
  DType activations = DType::bf16;  // matmuls compute in this type
  DType kv = DType::bf16;
};

// A kernel by name ("fused"); the built-in ones have constants for code that names them.
struct AttentionImpl {
  std::string name = "fused";
  bool operator==(const AttentionImpl& o) const { return name == o.name; }
  bool operator!=(const AttentionImpl& o) const { return name != o.name; }
  static const AttentionImpl fused, unfused, vector;
};

// An op's input: the producing op and how many elements of its output this op reads.
struct OpInput {
  OpId from;
  std::int64_t elements;
};

// The graph builder as a kernel sees it: ops added to the layer being built (names get the
// layer's prefix, ops the layer's pipeline stage).
class AttentionGraph {
 public:
  virtual ~AttentionGraph() = default;
  virtual OpId gemm(const std::string& name, const std::string& op_class, const GemmShape& shape,
                    const std::vector<OpInput>& inputs) = 0;
  // Reads `in` elements (of `in_dtype`, default the activations' type), writes `out` (of
  // `out_dtype` when `convert`), `flops` per input element on the vector units.
  virtual OpId vector(const std::string& name, const std::string& op_class, std::int64_t in, std::int64_t out, double flops,
                      const std::vector<OpInput>& inputs, DType out_dtype = DType::bf16, bool convert = false,
                      std::optional<DType> in_dtype = std::nullopt) = 0;
};

// One layer's attention on one chip: Q after RoPE and the K and V this pass wrote to the cache.
struct AttentionShape {
  OpId q = 0, kv_write = 0;
  std::int64_t sequences = 0;  // per micro-batch, on this chip
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0;  // this chip's share
  std::int64_t new_tokens = 0;  // per sequence: the prompt in prefill, 1 in decode
  std::int64_t context = 0;     // keys the newest token attends to
  bool prefill = false;
  Precision precision;
  std::int64_t rows() const { return sequences * new_tokens; }
  std::int64_t group() const { return heads > kv_heads ? (heads + kv_heads - 1) / kv_heads : 1; }  // query heads per KV head
  std::int64_t q_elements() const { return rows() * heads * head_dim; }
  std::int64_t kv_elements_written() const { return rows() * 2 * kv_heads * head_dim; }
};

class AttentionKernel {
 public:
  virtual ~AttentionKernel() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // for --help and the docs
  // Adds the ops and returns the one whose output (rows x heads x head_dim) feeds o_proj.
  virtual OpId build(AttentionGraph& g, const AttentionShape& s) const = 0;
};

using AttentionKernelRegistry = Registry<AttentionKernel>;

const AttentionKernelRegistry& attention_kernels();
std::string attention_name(const AttentionImpl& a);
// Throws InputError naming `what` for a kernel that is not registered.
AttentionImpl parse_attention(const std::string& text, const std::string& what);

}  // namespace roofsim
