#include "serving/kv_admission.hpp"

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

}  // namespace roofsim
