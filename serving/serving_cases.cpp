#include "serving/serving_cases.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/presets.hpp"
#include "experiment/stack.hpp"
#include "experiment/worker_pool.hpp"
#include "serving/case_disaggregated.hpp"
#include "serving/case_models.hpp"
#include "serving/case_rows.hpp"
#include "serving/harness_recipes.hpp"
#include "serving/stack_serving.hpp"
#include "workloads/checkpoint_precision.hpp"

namespace roofsim {

namespace {

// A serving-cases file larger than this is refused before it is read: the shared files are
// 0.3 MB, and /dev/zero must not fill memory.
constexpr std::uintmax_t kMaxCasesFileBytes = 64ull << 20;
// aiconfigurator's systems as roofsim hardware presets.
const std::map<std::string, std::string> kSystems = {{"h100_sxm", "h100_sxm5"}, {"h200_sxm", "h200_sxm"}, {"b200_sxm", "b200"},
                                                     {"gb200_sxm", "gb200_nvl72"}, {"a100_sxm", "a100_sxm4_80gb"}};

using namespace case_rows;

ServingCase read_row(const std::string& path, const CsvRow& row, std::map<std::string, ModelMatch>& models,
                     std::map<std::string, HardwareSpec>& hardware) {
  ServingCase c;
  c.file = path;
  c.id = cell(row, "id");
  c.line = std::stol(row.at("#line"));
  c.system = cell(row, "system");
  c.model_path = cell(row, "model_path");
  c.mode = cell(row, "mode");
  if (const std::optional<std::string> mode = canonical_mode(c.mode); mode && *mode != c.mode) {
    c.assumptions.push_back("mode '" + c.mode + "' read as " + *mode);
    c.mode = *mode;
  }
  if (!cell(row, "backend").empty()) c.backend = cell(row, "backend");
  if (const std::optional<std::string> backend = canonical_backend(c.backend); backend && *backend != c.backend) {
    c.assumptions.push_back("backend '" + c.backend + "' read as " + *backend);
    c.backend = *backend;
  }
  c.backend_version = cell(row, "backend_version");
  if (c.backend_version.empty()) {
    c.backend_version = image_version(c.backend, cell(row, "image"));
    if (!c.backend_version.empty()) c.assumptions.push_back("backend_version blank: " + c.backend_version + ", its image's tag (" + cell(row, "image") + ")");
  }
  c.harness = serving_harness(cell(row, "silicon_data_source"));
  if (c.harness == ServingCase::Harness::inferencemax) {
    c.assumptions.push_back("measured by InferenceMAX (its silicon_data_source): each request's prompt and output lengths drawn "
                            "uniformly from [0.8 x isl, isl] and [0.8 x osl, osl], as its client does");
  }
  try {
    c.ttft_s = positive_cell(row, "silicon_ttft_ms") * 1e-3;
    c.tpot_s = positive_cell(row, "silicon_tpot_ms") * 1e-3;
    const std::optional<std::int64_t> isl = count(row, "isl"), osl = count(row, "osl");
    if (!isl || !osl) throw RowProblem{"isl and osl must be positive whole numbers"};
    c.isl = *isl;
    c.osl = *osl;
    if (c.backend != "trtllm" && c.backend != "vllm" && c.backend != "sglang") {
      throw RowProblem{"backend '" + c.backend + "' (expected trtllm, vllm or sglang)"};
    }
    if (c.mode != "agg" && c.mode != "disagg") throw RowProblem{"mode '" + c.mode + "' (expected agg or disagg)"};
    auto system = kSystems.find(c.system);
    if (system == kSystems.end()) throw RowProblem{"system '" + c.system + "' has no hardware preset"};
    c.hw = system->second;
    if (!hardware.count(c.hw)) hardware.emplace(c.hw, load_hardware(c.hw));
    const HardwareSpec& hw = hardware.at(c.hw);
    if (!models.count(c.model_path)) models.emplace(c.model_path, resolve_model(c.model_path));
    const ModelMatch& match = models.at(c.model_path);
    if (match.model.empty()) throw RowProblem{"model '" + c.model_path + "' is not in roofsim's catalog (roofsim models list)"};
    c.model = match.model;
    if (!match.assumption.empty()) c.assumptions.push_back(match.assumption);
    const ModelConfig m = load_model(c.model);
    // Weight formats: the row's labels, blank = the checkpoint's own.
    auto format_of = [&](const std::string& column, const WeightFormat& own, const std::string& what) {
      const std::string label = cell(row, column);
      if (label.empty()) return on_chip(checkpoint_format(own), hw, what, c.assumptions);
      const std::optional<LinearFormat> f = parse_quant_label(label);
      if (!f) throw RowProblem{column + " '" + label + "' is not a quantization roofsim knows"};
      return on_chip(*f, hw, what, c.assumptions);
    };
    LinearFormat dense = format_of("gemm_quant_mode", m.dense_format, "dense linears");
    // A 4-bit label on a model whose checkpoint keeps its dense layers 16-bit and quantizes only
    // its experts (gpt-oss) names the experts' format.
    const bool expert_only_checkpoint = m.is_moe() && m.dense_format.weights == DType::bf16 && m.expert_format.weights != DType::bf16;
    if (expert_only_checkpoint && dtype_bits(dense.format.weights) < 8) {
      c.assumptions.push_back("gemm_quant_mode '" + cell(row, "gemm_quant_mode") + "' taken as the experts' format: the checkpoint's dense linears are 16-bit");
      dense = checkpoint_format(m.dense_format);
    }
    const std::string moe_label = cell(row, "moe_quant_mode").empty() ? cell(row, "gemm_quant_mode") : cell(row, "moe_quant_mode");
    LinearFormat experts = dense;
    if (m.is_moe()) {
      if (moe_label.empty()) {
        experts = on_chip(checkpoint_format(m.expert_format), hw, "experts", c.assumptions);
      } else {
        const std::optional<LinearFormat> f = parse_quant_label(moe_label);
        if (!f) throw RowProblem{"moe_quant_mode '" + moe_label + "' is not a quantization roofsim knows"};
        experts = on_chip(*f, hw, "experts", c.assumptions);
      }
    }
    c.precision.weights = dense.format.weights;
    c.precision.activations = dense.activations;
    c.precision.scale_block_k = dense.format.scale_block_k;
    if (experts.format != dense.format || experts.activations != dense.activations) {
      c.precision.experts = Precision::Experts{experts.format.weights, experts.activations, experts.format.scale_block_k};
    }
    if (!hw.matrix_supports(c.precision.activations)) throw RowProblem{c.hw + " does not compute in " + std::string(dtype_name(c.precision.activations))};
    // The parallel layout and batch limit of one instance (the decode one, disaggregated).
    const bool moe = m.is_moe();
    if (c.mode == "agg") {
      const ColumnLayout l = read_layout(row, "", moe, c);
      c.tp = l.tp;
      c.pp = l.pp;
      c.ep = l.ep;
      c.moe_tp = l.moe_tp;
      const std::optional<std::int64_t> batch = count(row, "batch_size");
      fill_concurrency(c, row, batch.value_or(0) * l.ep);
      if (c.concurrency <= 0) throw RowProblem{"neither silicon_concurrency nor batch_size is given"};
      if (batch) {
        c.batch = *batch;
      } else {
        c.batch = (c.concurrency + l.ep - 1) / l.ep;
        assume_deployment(c, "batch_size blank: each scheduler's batch limit holds its share of the clients, " + std::to_string(c.batch));
      }
    } else {
      c.disaggregated = true;
      read_disaggregated(row, moe, c);
    }
    // A concurrency above batch_size: the deployment's batch limit was set otherwise (the files'
    // README), so the limit holds every client.
    const std::int64_t schedulers = c.ep * (c.disaggregated ? c.decode_instances : 1);
    if (c.concurrency > c.batch * schedulers && !c.batch_from_recipe) {
      const std::int64_t raised = (c.concurrency + schedulers - 1) / schedulers;
      c.assumptions.push_back("concurrency " + std::to_string(c.concurrency) + " above batch_size " + std::to_string(c.batch) +
                              (schedulers > 1 ? " x " + std::to_string(schedulers) + " schedulers" : std::string()) +
                              ": the batch limit was set otherwise; taken as " + std::to_string(raised) + " per scheduler, room for every client");
      c.batch = raised;
    }
    const std::int64_t gpus = std::max(c.tp * c.pp * c.ep, c.disaggregated ? c.prefill_tp * c.prefill_ep : 1);
    if (gpus > kGpusPerNode) c.assumptions.push_back("workers of " + std::to_string(gpus) + " GPUs span nodes of " + std::to_string(kGpusPerNode));
    backend_stack(c.backend, c.backend_version, c.assumptions);
    const HarnessScheduling* sched = c.harness == ServingCase::Harness::inferencemax && !c.disaggregated
                                         ? harness_scheduling(inferencemax_scheduling(), c.backend, c.model_path, c.isl, c.osl, c.tp)
                                         : nullptr;
    if (sched && sched->batch_wait_iters > 0) {
      std::ostringstream said;
      said << "InferenceMAX's launch script holds prompts back for batching (" << sched->launch_script << "): up to "
           << sched->batch_wait_iters << " iterations or " << sched->batch_wait_tokens_ratio << " x the token budget";
      c.assumptions.push_back(said.str());
    }
    if (sched && sched->adp_balance_timeout_iters + sched->adp_batching_wait_iters > 0 && c.ep > 1) {
      c.assumptions.push_back("InferenceMAX's launch script balances prompts over the attention-DP ranks (" + sched->launch_script +
                              "): held until every rank has one, up to " + std::to_string(sched->adp_balance_timeout_iters) + " iterations");
    }
  } catch (const RowProblem& p) {
    c.not_simulated = p.reason;
  } catch (const InputError& e) {  // a model or hardware file that does not load
    c.not_simulated = e.what();
  }
  return c;
}

}  // namespace

std::string ServingCase::note() const {
  std::string s;
  for (const std::string& a : assumptions) s += (s.empty() ? "" : "; ") + a;
  return s;
}

std::vector<ServingCase> load_serving_cases(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) > kMaxCasesFileBytes) {
    throw InputError(path + ": larger than " + std::to_string(kMaxCasesFileBytes >> 20) + " MiB: not a serving-cases file");
  }
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path + ": not a regular file");
  const std::vector<CsvRow> rows = read_csv(path);
  if (rows.empty()) throw InputError(path + ": no cases");
  for (const char* column : {"id", "model_path", "system", "mode", "isl", "osl", "silicon_ttft_ms", "silicon_tpot_ms"}) {
    if (!rows.front().count(column)) throw InputError(path + ":1: " + column + ": required column missing");
  }
  std::vector<ServingCase> cases;
  std::map<std::string, ModelMatch> models;
  std::map<std::string, HardwareSpec> hardware;
  for (const CsvRow& row : rows) cases.push_back(read_row(path, row, models, hardware));
  return cases;
}

std::string serving_case_stack(const ServingCase& c, const ServingCaseSettings& s) {
  if (s.stack) return *s.stack;
  std::vector<std::string> unused;
  return backend_stack(c.backend, c.backend_version, unused);
}

ServingCase::Harness serving_harness(const std::string& source) {
  // aiconfigurator's gap-analysis files: source_file=.../aic-auto-gap-analysis/data/<system>/...
  if (source.find("aic-auto-gap-analysis") != std::string::npos) return ServingCase::Harness::aiconfigurator;
  // InferenceMAX's results: its daily files (source_file=2026-03-25.csv; model=...) or its
  // results database (db-dump/...; config_id=...; workflow_run_id=...), the same runs.
  static const std::regex daily(R"((^|; )source_file=\d{4}-\d{2}-\d{2}\.csv(;|$))");
  if (source.rfind("db-dump/", 0) == 0 || std::regex_search(source, daily)) return ServingCase::Harness::inferencemax;
  return ServingCase::Harness::unknown;
}

namespace {

// A row's prompt or output length as its harness drew them: `nominal` tokens each, or
// InferenceMAX's uniform integers in [int(0.8 x nominal), nominal].
LengthDistribution case_lengths(ServingCase::Harness harness, std::int64_t nominal) {
  LengthDistribution d;
  d.mean = static_cast<double>(nominal);
  if (harness != ServingCase::Harness::inferencemax) return d;
  d.kind = LengthDistribution::Kind::uniform;
  d.min = std::max<std::int64_t>(1, static_cast<std::int64_t>(kInferenceMaxRangeRatio * static_cast<double>(nominal)));
  d.max = nominal;
  d.mean = 0.5 * static_cast<double>(d.min + d.max);
  return d;
}

}  // namespace

ServingSetup serving_case_setup(const ServingCase& c, const ServingCaseSettings& s) {
  ServingSetup setup;
  if (!c.not_simulated.empty()) throw InputError(c.id + ": not simulated: " + c.not_simulated);
  setup.machine.hw = c.hw;
  setup.machine.model = c.model;
  setup.machine.tp = c.tp;
  setup.machine.pp = c.pp;
  setup.machine.ep = c.ep;
  setup.machine.moe_tp = c.moe_tp;
  setup.machine.precision = c.precision;
  setup.machine.precision_given = true;  // the row's labels, or the checkpoint's where blank
  if (!c.disaggregated) setup.machine.nodes = nodes_for(c.tp * c.pp * c.ep);
  const std::string stack_name = serving_case_stack(c, s);
  StackServing sv;
  if (!stack_name.empty()) {
    // The row's release of its backend's stack (its [releases] up to the row's version).
    const std::string release = s.stack ? "" : stack_release(c.backend, c.backend_version);
    const SoftwareStack stack = load_stack(release.empty() ? stack_name : stack_name + "@" + release);
    apply_stack(stack, setup.machine, false, false);
    sv = stack.serving;
  }
  if (c.disaggregated) {
    DisaggregationConfig& d = setup.disaggregation;
    d.enabled = true;
    d.prefill_instances = c.prefill_instances;
    d.decode_instances = c.decode_instances;
    d.prefill_tp = c.prefill_tp;
    d.decode_tp = c.decode_tp;
    d.prefill_ep = c.prefill_ep;
    d.decode_ep = c.ep;
    d.prefill_moe_tp = c.prefill_moe_tp;
    d.decode_moe_tp = c.moe_tp;
    d.gpus_per_node = kGpusPerNode;
    d.prefill_max_batch = c.prefill_max_batch;
    d.prefill_max_tokens = c.prefill_max_tokens;
    if (c.harness == ServingCase::Harness::inferencemax) {
      // InferenceMAX's disaggregated runs all go through NVIDIA Dynamo's frontend (its
      // dynamo-trt and dynamo-sglang configs): round-robin routing (--router-mode's default),
      // every token streamed from the decode worker.
      d.routing = "round_robin";
      d.first_token = DisaggregationConfig::FirstToken::decode;
      d.decode_first_response = c.decode_first_response;
    }
  }
  setup.workload.arrivals.kind = Arrivals::Kind::closed_loop;
  setup.workload.arrivals.concurrency = c.concurrency;
  std::int64_t requests = s.requests_per_client * c.concurrency;
  if (s.max_requests > 0) requests = std::max(std::min(requests, s.max_requests), 2 * c.concurrency);
  setup.workload.requests = requests;
  setup.workload.prompt = case_lengths(c.harness, c.isl);
  setup.workload.output = case_lengths(c.harness, c.osl);
  // InferenceMAX's launch scripts set each engine's budget (configs/harnesses/inferencemax_budgets.csv).
  const HarnessBudget* budget = c.harness == ServingCase::Harness::inferencemax && !c.disaggregated
                                    ? harness_budget(inferencemax_budgets(), c.backend, c.model_path)
                                    : nullptr;
  if (budget) {
    // As InferenceMAX's scripts launched the engine: their budget (computed from CONC, the
    // clients, not an attention-DP rank's batch_size), and SGLang without --enable-mixed-chunk
    // (prefill batches alone, the stack's prefill_first).
    setup.scheduler.max_tokens = budget_tokens(*budget, c.concurrency, c.isl);
    apply_stack_serving(sv, setup, [](const std::string& name) { return name == "max_tokens" || name == "kv_dtype"; });
    // Its KV cache as the script sets it: fp8, or the model's own dtype (the row's, as read).
    if (budget->fp8_kv_cache) setup.machine.precision.kv = DType::fp8;
    if (budget->overlap_loop) setup.scheduler.schedule_ahead = setup.scheduler.late_release = true;
    // And TensorRT-LLM's batch waiting and attention-DP balancing where a script turns them on
    // (configs/harnesses/inferencemax_scheduling.csv; read_row says so among the row's
    // assumptions; the pool applies the balancing only with attention DP).
    if (const HarnessScheduling* sched = harness_scheduling(inferencemax_scheduling(), c.backend, c.model_path, c.isl, c.osl, c.tp)) {
      setup.scheduler.batch_wait_iters = sched->batch_wait_iters;
      setup.scheduler.batch_wait_tokens_ratio = sched->batch_wait_tokens_ratio;
      setup.scheduler.adp_balance_timeout_iters = sched->adp_balance_timeout_iters;
      setup.scheduler.adp_batching_wait_iters = sched->adp_batching_wait_iters;
    }
  } else {
    // The token budget as aiconfigurator's generator deploys each engine (its rule_plugin/*.rule
    // and backend_config_mapping.yaml). TensorRT-LLM's max_num_tokens and vLLM's
    // --max-num-batched-tokens: batch_size + prompt + 1500 aggregated, prefill_batch_size prompts
    // + 1500 on prefill workers. SGLang's --max-prefill-tokens: prompt + 1500, under the stack's
    // chunked-prefill size. Blank or bigger limits are the stack's ([serving] max_num_tokens).
    setup.scheduler.max_tokens = c.disaggregated ? c.prefill_batch * c.isl + kGeneratorSpareTokens : c.batch + c.isl + kGeneratorSpareTokens;
    const bool generator_budget = c.backend == "trtllm" || c.backend == "vllm";
    apply_stack_serving(sv, setup, [&](const std::string& name) { return name == "max_tokens" && generator_budget; });
    if (c.backend == "sglang") {
      setup.scheduler.max_tokens = std::min(setup.scheduler.max_tokens, c.isl + kGeneratorSpareTokens);
      // --enable-mixed-chunk on aggregated workers: the prompt chunks run in the decodes'
      // iteration and share its budget (decode first). The generator's templates pass it from
      // SGLang 0.5.3 on; its 0.5.1.post1 template asks for a key it never sets
      // ('enable-mix-chunk'), so those deployments ran prefill batches alone (prefill_first).
      if (!c.disaggregated && sglang_mixed_chunk(c.backend_version)) setup.scheduler.priority = "decode_first";
    }
  }
  // The batch limit: the row's batch_size is each attention-DP rank's. Where a rank's scheduler
  // has its own limits (SchedulerConfig::limits_per_rank) the pool multiplies them; where the
  // ranks share the instance's, the instance holds batch_size per rank.
  const std::int64_t rank_batch = c.batch + s.batch_offset.value_or(sv.batch_offset.value_or(0));
  setup.scheduler.max_batch = std::max<std::int64_t>(1, setup.scheduler.limits_per_rank ? rank_batch : rank_batch * c.ep);
  // Flags override the stack, for every row.
  if (s.max_tokens) setup.scheduler.max_tokens = *s.max_tokens;
  if (s.max_prompts) setup.scheduler.max_prompts = *s.max_prompts;
  if (s.late_release) setup.scheduler.late_release = *s.late_release;
  if (s.iteration_overhead_s) setup.iteration_overhead_s = *s.iteration_overhead_s;
  if (s.sequence_overhead_s) setup.sequence_overhead_s = *s.sequence_overhead_s;
  if (s.frontend_request_s) setup.frontend.request_s = *s.frontend_request_s;
  if (s.frontend_response_s) setup.frontend.response_s = *s.frontend_response_s;
  if (s.frontend_prompt_token_s) setup.frontend.prompt_token_s = *s.frontend_prompt_token_s;
  // The API server is modelled in front of one instance only: disaggregated rows run without it.
  if (c.disaggregated) setup.frontend = FrontendConfig{};
  setup.buckets_per_octave = s.buckets_per_octave;
  setup.sample_layers = s.sample_layers;
  setup.overlap_host = s.overlap_host;
  setup.source = "serving case " + c.id;
  if (s.ramp_requests > 0) {
    // One request's duration, estimated before the run from a decode step of the full batch
    // (rounded up to whole EP ranks: attention is data parallel over them).
    const PassSimulator sim(setup.machine);
    const std::int64_t ranks = std::max<std::int64_t>(1, setup.machine.ep);
    const std::int64_t batch = (c.concurrency + ranks - 1) / ranks * ranks;
    const double step = sim.simulate_sampled(mixed_pass({{batch, 1, c.isl + c.osl / 2, false}})).seconds;
    setup.workload.arrivals.ramp_s = s.ramp_requests * step * static_cast<double>(c.osl);
  }
  return setup;
}

double closed_loop_requests_per_s(std::int64_t concurrency, std::int64_t output_tokens, double ttft_s, double tpot_s) {
  return static_cast<double>(concurrency) / (ttft_s + static_cast<double>(output_tokens - 1) * tpot_s);
}

double ServingCase::requests_per_s() const { return closed_loop_requests_per_s(concurrency, osl, ttft_s, tpot_s); }

std::vector<ServingCaseResult> run_serving_cases(const std::vector<ServingCase>& cases, const ServingCaseSettings& s,
                                                 const RunControl& control, int jobs) {
  std::vector<const ServingCase*> todo;
  for (const ServingCase& c : cases) {
    if (c.not_simulated.empty()) todo.push_back(&c);
  }
  std::vector<std::optional<ServingCaseResult>> results(todo.size());
  std::size_t done = 0;
  run_in_workers(
      todo.size(), jobs,
      [&](std::size_t i) {
        nlohmann::json j;
        try {
          const ServingResult r = run_serving(serving_case_setup(*todo[i], s));
          j = {{"ttft_s", r.summary.ttft_s.mean}, {"tpot_s", r.summary.tpot_s.mean}, {"wall_s", r.wall_s}};
        } catch (const InputError& e) {
          j = {{"failed", e.what()}};
        }
        return j;
      },
      [&](std::size_t i, const nlohmann::json& j) {
        ServingCaseResult res;
        res.c = *todo[i];
        if (j.contains("failed")) {
          res.failed = j.at("failed").get<std::string>();
        } else {
          res.ttft_s = j.at("ttft_s").get<double>();
          res.tpot_s = j.at("tpot_s").get<double>();
          res.wall_s = j.at("wall_s").get<double>();
        }
        results[i] = res;
        control.report(++done, todo.size(), todo[i]->id);
      },
      control);
  std::vector<ServingCaseResult> out;
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

}  // namespace roofsim
