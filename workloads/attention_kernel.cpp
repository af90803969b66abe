#include "workloads/attention_kernel.hpp"

#include <stdexcept>

#include "core/error.hpp"

namespace roofsim {

#define ROOFSIM_ATTENTION_KERNEL_FILE(file) void register_attention_kernels_##file(AttentionKernelRegistry&);
#include "attention_kernels.inc"
#undef ROOFSIM_ATTENTION_KERNEL_FILE

const AttentionImpl AttentionImpl::fused{"fused"};
const AttentionImpl AttentionImpl::unfused{"unfused"};
const AttentionImpl AttentionImpl::vector{"vector"};

void AttentionKernelRegistry::add(std::unique_ptr<AttentionKernel> k) {
  if (find(k->name())) throw std::logic_error("attention kernel '" + k->name() + "' registered twice");
  kernels_.push_back(std::move(k));
}

const AttentionKernel* AttentionKernelRegistry::find(const std::string& name) const {
  for (const auto& k : kernels_) {
    if (k->name() == name) return k.get();
  }
  return nullptr;
}

std::vector<std::string> AttentionKernelRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& k : kernels_) out.push_back(k->name());
  return out;
}

const AttentionKernel& AttentionKernelRegistry::get(const std::string& name) const {
  if (const AttentionKernel* k = find(name)) return *k;
  std::string list;
  for (const std::string& n : names()) list += (list.empty() ? "" : ", ") + n;
  throw InputError("${attention}: unknown attention '" + name + "' (expected one of " + list + ")");
}

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
    std::string list;
    for (const std::string& n : attention_kernels().names()) list += (list.empty() ? "" : ", ") + n;
    throw InputError(what + ": unknown attention '" + text + "' (expected one of " + list + ")");
  }
  return AttentionImpl{text};
}

}  // namespace roofsim
