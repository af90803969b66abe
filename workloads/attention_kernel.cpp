#include "workloads/attention_kernel.hpp"

#include "core/error.hpp"

namespace roofsim {

#define ROOFSIM_ATTENTION_KERNEL_FILE(file) void register_attention_kernels_##file(AttentionKernelRegistry&);
#include "attention_kernels.inc"
#undef ROOFSIM_ATTENTION_KERNEL_FILE

const AttentionImpl AttentionImpl::fused{"fused"};
const AttentionImpl AttentionImpl::unfused{"unfused"};
const AttentionImpl AttentionImpl::vector{"vector"};

const AttentionKernelRegistry& attention_kernels() {
  static const AttentionKernelRegistry registry = [] {
    AttentionKernelRegistry r;
#define ROOFSIM_ATTENTION_KERNEL_FILE(file) register_attention_kernels_##file(r);
#include "attention_kernels.inc"
#undef ROOFSIM_ATTENTION_KERNEL_FILE
    return r;
  }();
  return registry;
}

std::string attention_name(const AttentionImpl& a) { return a.name; }

AttentionImpl parse_attention(const std::string& text, const std::string& what) {
  if (!attention_kernels().find(text)) {
    throw InputError(what + ": unknown attention '" + text + "' (expected one of " + attention_kernels().list() + ")");
  }
  return AttentionImpl{text};
}

}  // namespace roofsim
