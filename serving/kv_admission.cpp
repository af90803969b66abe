#include "serving/kv_admission.hpp"

#include "experiment/stack.hpp"

namespace roofsim {

#define ROOFSIM_KV_ADMISSION_FILE(file) void register_kv_admissions_##file(KvAdmissionRegistry&);
#include "kv_admissions.inc"
#undef ROOFSIM_KV_ADMISSION_FILE

KvAdmissionRegistry& kv_admissions() {
  static KvAdmissionRegistry registry = [] {
    KvAdmissionRegistry r;
#define ROOFSIM_KV_ADMISSION_FILE(file) register_kv_admissions_##file(r);
#include "kv_admissions.inc"
#undef ROOFSIM_KV_ADMISSION_FILE
    return r;
  }();
  return registry;
}

namespace {
// A stack file's [serving] kv_admission takes this registry's names, a plug-in's included (experiment/stack.hpp).
[[maybe_unused]] const bool kv_admissions_in_stack_files = [] {
  set_stack_serving_choices("kv_admission", [] { return kv_admissions().names(); });
  return true;
}();
}  // namespace

}  // namespace roofsim
