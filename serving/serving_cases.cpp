#include "serving/serving_cases.hpp"

#include <map>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "experiment/stack.hpp"

namespace roofsim {

namespace {

// The rows' systems and models as roofsim presets. Llama-3.1-8B has Llama-3-8B's layers (its
// longer context does not matter at these lengths).
const std::map<std::string, std::string> kSystems = {{"h100_sxm", "h100_sxm5"}};
const std::map<std::string, std::string> kModels = {{"meta-llama/Llama-3.1-8B-Instruct", "llama-3-8b"},
                                                    {"meta-llama/Llama-3.1-8B", "llama-3-8b"}};

std::string mapped(const std::map<std::string, std::string>& table, const std::string& path, const CsvRow& row,
                   const std::string& column) {
  const std::string& value = csv_text(path, row, column);
  auto found = table.find(value);
  if (found == table.end()) {
    throw InputError(path + ":" + row.at("#line") + ": " + column + ": '" + value + "' has no roofsim preset");
  }
  return found->second;
}

}  // namespace

std::vector<ServingCase> load_serving_cases(const std::string& path) {
  std::vector<ServingCase> cases;
  for (const CsvRow& row : read_csv(path)) {
    ServingCase c;
    c.id = csv_text(path, row, "id");
    c.line = std::stol(row.at("#line"));
    if (csv_text(path, row, "mode") != "agg") {
      throw InputError(path + ":" + row.at("#line") + ": mode: only aggregated serving ('agg') is simulated so far");
    }
    if (csv_positive_integer(path, row, "pp_size") != 1) {
      throw InputError(path + ":" + row.at("#line") + ": pp_size: serving runs without pipeline parallelism so far");
    }
    c.hw = mapped(kSystems, path, row, "system");
    c.model = mapped(kModels, path, row, "model_path");
    c.isl = csv_positive_integer(path, row, "isl");
    c.osl = csv_positive_integer(path, row, "osl");
    c.tp = csv_positive_integer(path, row, "tp_size");
    c.concurrency = csv_positive_integer(path, row, "silicon_concurrency");
    c.ttft_s = csv_positive_number(path, row, "silicon_ttft_ms") * 1e-3;
    c.tpot_s = csv_positive_number(path, row, "silicon_tpot_ms") * 1e-3;
    cases.push_back(c);
  }
  if (cases.empty()) throw InputError(path + ": no cases");
  return cases;
}

ServingSetup serving_case_setup(const ServingCase& c, const ServingCaseSettings& s) {
  ServingSetup setup;
  setup.machine.hw = c.hw;
  setup.machine.model = c.model;
  setup.machine.tp = c.tp;
  if (!s.stack.empty()) apply_stack(load_stack(s.stack), setup.machine, false, false);
  setup.workload.arrivals.kind = Arrivals::Kind::closed_loop;
  setup.workload.arrivals.concurrency = c.concurrency;
  setup.workload.requests = s.requests_per_client * c.concurrency;
  setup.workload.prompt.mean = static_cast<double>(c.isl);
  setup.workload.output.mean = static_cast<double>(c.osl);
  // TensorRT-LLM 1.0 as aiconfigurator's generator deploys it (aggregated): in-flight batching,
  // no chunked prefill, KV blocks of 32 tokens reserved at admission (GUARANTEED_NO_EVICT),
  // max_batch_size = the row's batch_size (its concurrency), max_num_tokens = batch_size +
  // prompt + 1500 (generator/backends/trtllm.py of aiconfigurator, the 1.0.0rc3 era).
  setup.scheduler.max_batch = std::max<std::int64_t>(1, c.concurrency + s.batch_offset);
  setup.scheduler.max_tokens = s.max_tokens > 0 ? s.max_tokens : c.concurrency + c.isl + 1500;
  setup.buckets_per_octave = s.buckets_per_octave;
  setup.sample_layers = s.sample_layers;
  setup.iteration_overhead_s = s.iteration_overhead_s;
  setup.sequence_overhead_s = s.sequence_overhead_s;
  setup.frontend = s.frontend;
  setup.source = "serving case " + c.id;
  if (s.ramp_requests > 0) {
    // One request's duration, estimated before the run from a decode step of the full batch.
    const PassSimulator sim(setup.machine);
    const double step = sim.simulate_sampled(mixed_pass({{c.concurrency, 1, c.isl + c.osl / 2, false}})).seconds;
    setup.workload.arrivals.ramp_s = s.ramp_requests * step * static_cast<double>(c.osl);
  }
  return setup;
}

std::vector<ServingCaseResult> run_serving_cases(const std::vector<ServingCase>& cases, const ServingCaseSettings& s,
                                                 const RunControl& control) {
  std::vector<ServingCaseResult> out;
  for (const ServingCase& c : cases) {
    if (control.stop_requested()) throw Cancelled();
    const ServingResult r = run_serving(serving_case_setup(c, s));
    ServingCaseResult res;
    res.c = c;
    res.ttft_s = r.summary.ttft_s.mean;
    res.tpot_s = r.summary.tpot_s.mean;
    res.wall_s = r.wall_s;
    out.push_back(res);
    control.report(out.size(), cases.size(), c.id);
  }
  return out;
}

}  // namespace roofsim
