#include "serving/serving_cases.hpp"

#include <cmath>
#include <map>
#include <optional>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/presets.hpp"
#include "experiment/stack.hpp"

namespace roofsim {

namespace {

// aiconfigurator's systems as roofsim hardware presets.
const std::map<std::string, std::string> kSystems = {{"h100_sxm", "h100_sxm5"}, {"h200_sxm", "h200_sxm"}, {"b200_sxm", "b200"},
                                                     {"gb200_sxm", "gb200_nvl72"}, {"a100_sxm", "a100_sxm4_80gb"}};
// Models whose rows run on a preset of their own name: Llama-3.1-8B has Llama-3-8B's layers (its
// longer context does not matter at these lengths; the calibration rows ran on it). Any other
// model_path is looked up in roofsim's model catalog (`roofsim models list`), as given and then
// without an instruction-tuning suffix.
const std::map<std::string, std::string> kModels = {{"meta-llama/Llama-3.1-8B-Instruct", "llama-3-8b"},
                                                    {"meta-llama/Llama-3.1-8B", "llama-3-8b"}};

std::string cell(const CsvRow& row, const std::string& column) {
  auto found = row.find(column);
  return found == row.end() ? std::string() : found->second;
}

// A count that may be absent or empty (then `fallback`) and may be written as a float ("8.0",
// as pandas writes an integer column that has gaps).
std::int64_t count(const std::string& path, const CsvRow& row, const std::string& column, std::int64_t fallback) {
  const std::string text = cell(row, column);
  if (text.empty()) return fallback;
  const std::optional<double> v = parse_number(text);
  if (!v || *v < 1 || *v > 1e6 || *v != std::floor(*v)) {
    throw InputError(path + ":" + row.at("#line") + ": " + column + ": expected a positive whole number, got '" + text + "'");
  }
  return static_cast<std::int64_t>(*v);
}

// A quantization mode as roofsim's weight type (fp8_block: fp8 weights with block scales);
// nullopt: not modelled in serving.
std::optional<DType> quant_dtype(const std::string& mode, bool& block) {
  block = mode == "fp8_block";
  if (mode.empty() || mode == "float16" || mode == "bfloat16" || mode == "fp16" || mode == "bf16") return DType::bf16;
  if (mode == "fp8" || mode == "fp8_ootb" || mode == "fp8_static" || mode == "fp8_block") return DType::fp8;
  if (mode == "nvfp4") return DType::nvfp4;
  return std::nullopt;
}

std::string resolve_model(const std::string& model_path, std::map<std::string, std::string>& cache) {
  auto known = kModels.find(model_path);
  if (known != kModels.end()) return known->second;
  auto cached = cache.find(model_path);
  if (cached != cache.end()) return cached->second;
  std::string found;
  std::vector<std::string> names{model_path};
  for (const char* suffix : {"-Instruct", "-instruct", "-Chat", "-chat", "-it", "-Base"}) {
    const std::string sfx = suffix;
    if (model_path.size() > sfx.size() && model_path.compare(model_path.size() - sfx.size(), sfx.size(), sfx) == 0) {
      names.push_back(model_path.substr(0, model_path.size() - sfx.size()));
    }
  }
  for (const std::string& name : names) {
    try {
      load_model(name);
      found = name;
      break;
    } catch (const InputError&) {
    }
  }
  cache[model_path] = found;
  return found;
}

// Roofsim's expert parallelism pairs each EP rank with a data-parallel attention rank of `tp`
// chips whose experts are TP-split the same way; a row's layout either is that or is not modelled.
std::string parallel_layout(const ServingCase& c, std::int64_t attention_dp, std::int64_t moe_tp, std::int64_t moe_ep, bool moe,
                            std::int64_t& ep, std::int64_t& experts_tp) {
  ep = 1;
  experts_tp = 0;
  const std::string layout = "attention TP " + std::to_string(c.tp) + " x DP " + std::to_string(attention_dp) + ", MoE TP " +
                             std::to_string(moe_tp) + " x EP " + std::to_string(moe_ep);
  if (!moe) {
    if (attention_dp != 1) return "data-parallel attention of a dense model (" + layout + ") is not modelled";
    return "";
  }
  if (attention_dp == 1 && moe_ep == 1 && moe_tp == c.tp) return "";
  if (attention_dp == 1 && moe_tp * moe_ep == c.tp) {  // experts spread inside the TP group
    experts_tp = moe_tp;
    return "";
  }
  if (attention_dp == moe_ep && moe_tp == c.tp) {
    ep = moe_ep;
    return "";
  }
  return "roofsim spreads experts either inside the TP group (MoE TP x EP = attention TP) or over data-parallel attention "
         "ranks of the same TP (" + layout + ")";
}

}  // namespace

std::vector<ServingCase> load_serving_cases(const std::string& path) {
  std::vector<ServingCase> cases;
  std::map<std::string, std::string> model_cache;
  std::map<std::string, HardwareSpec> hardware;
  std::map<std::string, bool> has_experts;  // by preset
  for (const CsvRow& row : read_csv(path)) {
    ServingCase c;
    c.id = csv_text(path, row, "id");
    c.line = std::stol(row.at("#line"));
    c.system = csv_text(path, row, "system");
    c.model_path = csv_text(path, row, "model_path");
    c.isl = csv_positive_integer(path, row, "isl");
    c.osl = csv_positive_integer(path, row, "osl");
    csv_text(path, row, "silicon_concurrency");  // required: refused with its column when missing
    c.concurrency = count(path, row, "silicon_concurrency", 1);
    c.ttft_s = csv_positive_number(path, row, "silicon_ttft_ms") * 1e-3;
    c.tpot_s = csv_positive_number(path, row, "silicon_tpot_ms") * 1e-3;
    const std::string mode = csv_text(path, row, "mode");
    std::vector<std::string> why;
    if (!cell(row, "backend").empty()) c.backend = cell(row, "backend");
    if (c.backend != "trtllm" && c.backend != "vllm" && c.backend != "sglang") {
      why.push_back("backend '" + c.backend + "' (expected trtllm, vllm or sglang)");
    }
    // The parallel layout and batch limit of one instance (the decode one, disaggregated).
    const std::string p = mode == "disagg" ? "decode_" : "";
    c.tp = count(path, row, p + "tp_size", 1);
    c.pp = count(path, row, p + "pp_size", 1);
    c.batch = count(path, row, p + "batch_size", c.concurrency);
    const std::int64_t attention_dp = count(path, row, p + "attention_dp_size", 1);
    const std::int64_t moe_tp = count(path, row, p + "moe_tp_size", c.tp), moe_ep = count(path, row, p + "moe_ep_size", 1);
    if (mode == "disagg") {
      c.disaggregated = true;
      c.prefill_instances = count(path, row, "prefill_num_workers", 1);
      c.decode_instances = count(path, row, "decode_num_workers", 1);
      c.prefill_tp = count(path, row, "prefill_tp_size", 1);
      c.decode_tp = c.tp;
      c.prefill_batch = count(path, row, "prefill_batch_size", 1);
      c.note = "disaggregated: without the API server (modelled in front of one instance only)";
      if (c.pp > 1 || count(path, row, "prefill_pp_size", 1) > 1) why.push_back("pipeline-parallel disaggregated instances are not modelled");
      if (attention_dp > 1 || moe_ep > 1 || count(path, row, "prefill_attention_dp_size", 1) > 1 || count(path, row, "prefill_moe_ep_size", 1) > 1) {
        why.push_back("expert parallelism in disaggregated instances is not modelled");
      }
    } else if (mode != "agg") {
      why.push_back("mode '" + mode + "' (expected agg or disagg)");
    }
    auto system = kSystems.find(c.system);
    if (system == kSystems.end()) {
      why.push_back("system '" + c.system + "' has no hardware preset");
    } else {
      c.hw = system->second;
    }
    c.model = resolve_model(c.model_path, model_cache);
    if (c.model.empty()) why.push_back("model '" + c.model_path + "' is not in roofsim's catalog");
    bool gemm_block = false, moe_block = false;
    const std::optional<DType> gemm = quant_dtype(cell(row, "gemm_quant_mode"), gemm_block);
    const std::optional<DType> moe = quant_dtype(cell(row, "moe_quant_mode").empty() ? cell(row, "gemm_quant_mode") : cell(row, "moe_quant_mode"), moe_block);
    if (!gemm || !moe) {
      why.push_back("quantization '" + cell(row, "gemm_quant_mode") + "' / '" + cell(row, "moe_quant_mode") + "' is not modelled in serving");
    } else if (*gemm != *moe || gemm_block != moe_block) {
      why.push_back("dense layers in " + cell(row, "gemm_quant_mode") + " and experts in " + cell(row, "moe_quant_mode") +
                    ": roofsim runs one weight format");
    } else {
      c.dtype = *gemm;
      c.fp8_block = gemm_block;
    }
    if (!c.hw.empty() && why.empty()) {
      if (!hardware.count(c.hw)) hardware.emplace(c.hw, load_hardware(c.hw));
      if (!hardware.at(c.hw).matrix_supports(c.dtype)) why.push_back(c.hw + " does not compute in " + std::string(dtype_name(c.dtype)));
    }
    if (!c.model.empty() && why.empty()) {
      if (!has_experts.count(c.model)) has_experts[c.model] = load_model(c.model).experts > 1;
      const std::string layout = parallel_layout(c, attention_dp, moe_tp, moe_ep, has_experts.at(c.model), c.ep, c.moe_tp);
      if (!layout.empty()) why.push_back(layout);
    }
    for (const std::string& w : why) c.not_simulated += (c.not_simulated.empty() ? "" : "; ") + w;
    cases.push_back(c);
  }
  if (cases.empty()) throw InputError(path + ": no cases");
  return cases;
}

std::string serving_case_stack(const ServingCase& c, const ServingCaseSettings& s) {
  if (s.stack) return *s.stack;
  return c.backend == "trtllm" ? "trtllm-1.x" : c.backend;
}

ServingSetup serving_case_setup(const ServingCase& c, const ServingCaseSettings& s) {
  ServingSetup setup;
  if (!c.not_simulated.empty()) throw InputError(c.id + ": not simulated: " + c.not_simulated);
  setup.machine.hw = c.hw;
  setup.machine.model = c.model;
  setup.machine.tp = c.tp;
  setup.machine.pp = c.pp;
  setup.machine.ep = c.ep;
  setup.machine.moe_tp = c.moe_tp;
  setup.machine.precision.weights = setup.machine.precision.activations = c.dtype;
  if (c.fp8_block) {  // each linear quantizes its bf16 input itself
    setup.machine.precision.activations = DType::bf16;
    setup.machine.precision.scale_block_k = 128;
  }
  const std::string stack = serving_case_stack(c, s);
  if (!stack.empty()) apply_stack(load_stack(stack), setup.machine, false, false);
  if (c.disaggregated) {
    setup.disaggregation.enabled = true;
    setup.disaggregation.prefill_instances = c.prefill_instances;
    setup.disaggregation.decode_instances = c.decode_instances;
    setup.disaggregation.prefill_tp = c.prefill_tp;
    setup.disaggregation.decode_tp = c.decode_tp;
  }
  setup.workload.arrivals.kind = Arrivals::Kind::closed_loop;
  setup.workload.arrivals.concurrency = c.concurrency;
  setup.workload.requests = s.requests_per_client * c.concurrency;
  setup.workload.prompt.mean = static_cast<double>(c.isl);
  setup.workload.output.mean = static_cast<double>(c.osl);
  // TensorRT-LLM 1.0 as aiconfigurator's generator deploys it (aggregated): in-flight batching,
  // no chunked prefill, KV blocks of 32 tokens reserved at admission (GUARANTEED_NO_EVICT),
  // max_batch_size = the row's batch_size (its concurrency), max_num_tokens = batch_size +
  // prompt + 1500 (generator/backends/trtllm.py of aiconfigurator, the 1.0.0rc3 era).
  // Disaggregated, the same limits with the decode instances' batch_size; the token budget,
  // which only prefill instances meet, holds their prefill_batch_size prompts (assumed: no
  // disaggregated row is in the calibration half).
  // With attention data parallel over EP ranks, TensorRT-LLM's max_batch_size is each rank's
  // (each has its own scheduler); roofsim's one scheduler plans for all of them (assumed: no
  // such row is in the calibration half).
  setup.scheduler.max_batch = std::max<std::int64_t>(1, c.batch * c.ep + s.batch_offset);
  if (c.backend == "trtllm") {
    setup.scheduler.max_prompts = s.max_prompts;
    setup.scheduler.late_release = s.late_release;
  }
  setup.scheduler.max_tokens = s.max_tokens > 0          ? s.max_tokens
                               : c.disaggregated ? c.prefill_batch * c.isl + 1500
                                                 : c.batch + c.isl + 1500;
  if (c.backend != "trtllm") {
    // vLLM V1 and SGLang split prompts into chunks of their token budget, mixed with the
    // decodes: 8192 tokens on large GPUs (vLLM's EngineArgs.get_batch_defaults for its OpenAI
    // server: 70 GiB or more and not an A100, else 2048; SGLang's chunked_prefill_size).
    // Assumed: no vLLM or SGLang row is in the calibration half.
    setup.scheduler.chunked_prefill = true;
    if (s.max_tokens <= 0) setup.scheduler.max_tokens = c.backend == "vllm" && c.hw == "a100_sxm4_80gb" ? 2048 : 8192;
  }
  setup.buckets_per_octave = s.buckets_per_octave;
  setup.sample_layers = s.sample_layers;
  setup.iteration_overhead_s = s.iteration_overhead_s;
  setup.sequence_overhead_s = s.sequence_overhead_s;
  setup.overlap_host = s.overlap_host;
  // The API server is modelled in front of one instance only: disaggregated rows run without
  // it (their note says so).
  setup.frontend = c.disaggregated ? FrontendConfig{} : s.frontend;
  setup.source = "serving case " + c.id;
  if (s.ramp_requests > 0) {
    // One request's duration, estimated before the run from a decode step of the full batch.
    const PassSimulator sim(setup.machine);
    const double step = sim.simulate_sampled(mixed_pass({{c.concurrency, 1, c.isl + c.osl / 2, false}})).seconds;
    setup.workload.arrivals.ramp_s = s.ramp_requests * step * static_cast<double>(c.osl);
  }
  return setup;
}

double closed_loop_requests_per_s(std::int64_t concurrency, std::int64_t output_tokens, double ttft_s, double tpot_s) {
  return static_cast<double>(concurrency) / (ttft_s + static_cast<double>(output_tokens - 1) * tpot_s);
}

double ServingCase::requests_per_s() const { return closed_loop_requests_per_s(concurrency, osl, ttft_s, tpot_s); }

std::vector<ServingCaseResult> run_serving_cases(const std::vector<ServingCase>& cases, const ServingCaseSettings& s,
                                                 const RunControl& control) {
  std::vector<ServingCaseResult> out;
  for (const ServingCase& c : cases) {
    if (!c.not_simulated.empty()) continue;
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
