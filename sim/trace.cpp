#include "sim/trace.hpp"

#include "sim/output.hpp"

namespace roofsim {

void write_trace(const std::string& path, const ExperimentResult& r) {
  // First version: one track per engine kind with every op as a slice.
  nlohmann::json events = nlohmann::json::array();
  for (const OpInstance& o : r.ops) {
    events.push_back({{"name", o.op->name},
                      {"cat", o.op->op_class},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", o.op->is_gemm ? 1 : 2},
                      {"ts", static_cast<double>(o.result.start_ps) / 1e6},
                      {"dur", static_cast<double>(o.result.end_ps - o.result.start_ps) / 1e6}});
  }
  write_json(path, {{"traceEvents", events}, {"displayTimeUnit", "ns"}});
}

}  // namespace roofsim
