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
#include "serving/harness_recipes.hpp"
#include "serving/stack_serving.hpp"
#include "workloads/checkpoint_precision.hpp"

namespace roofsim {

namespace {

// A serving-cases file larger than this is refused before it is read: the shared files are
// 0.3 MB, and /dev/zero must not fill memory.
constexpr std::uintmax_t kMaxCasesFileBytes = 64ull << 20;
// GPUs of one NVLink domain on the systems of these files (8 per H100/H200 node).
constexpr std::int64_t kGpusPerNode = 8;

// aiconfigurator's systems as roofsim hardware presets.
const std::map<std::string, std::string> kSystems = {{"h100_sxm", "h100_sxm5"}, {"h200_sxm", "h200_sxm"}, {"b200_sxm", "b200"},
                                                     {"gb200_sxm", "gb200_nvl72"}, {"a100_sxm", "a100_sxm4_80gb"}};
std::string cell(const CsvRow& row, const std::string& column) {
  auto found = row.find(column);
  return found == row.end() ? std::string() : found->second;
}

// A row's problem: the row is listed with it and not simulated.
struct RowProblem {
  std::string reason;
};

// A count that may be absent, empty or 0 ("not set" in these files: then nullopt) and may be
// written as a float ("8.0", as pandas writes an integer column that has gaps).
std::optional<std::int64_t> count(const CsvRow& row, const std::string& column) {
  const std::string text = cell(row, column);
  if (text.empty()) return std::nullopt;
  const std::optional<double> v = parse_number(text);
  if (!v || *v < 0 || *v != std::floor(*v)) throw RowProblem{column + ": expected a whole number, got '" + text + "'"};
  if (*v > 1e6) throw RowProblem{column + ": " + text + " is more than roofsim takes in a cell, 1000000"};
  if (*v == 0) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

double positive_cell(const CsvRow& row, const std::string& column) {
  const std::string text = cell(row, column);
  const std::optional<double> v = parse_number(text);
  if (!v || !std::isfinite(*v) || *v <= 0) throw RowProblem{column + ": expected a positive number, got '" + text + "'"};
  return *v;
}

// --- Models as people name them --------------------------------------------------------------

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool loads(const std::string& name) {
  try {
    load_model(name);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// A hub id as roofsim's catalog has it: as given; without an instruction-tuning suffix; under
// another organisation's name (a re-upload: RedHatAI/..., nvidia/...); without a quantization
// suffix (-FP8, -AWQ...), whose format the row's quantization columns then give. "" when none.
struct ModelMatch {
  std::string model;
  std::string assumption;  // how the name was read, when not as given
};

ModelMatch resolve_model(const std::string& model_path) {
  if (loads(model_path)) return {model_path, ""};
  const auto slash = model_path.find('/');
  const std::string org = slash == std::string::npos ? "" : model_path.substr(0, slash);
  std::string name = slash == std::string::npos ? model_path : model_path.substr(slash + 1);
  std::vector<std::string> names{name};
  for (const char* quant : {"-FP8-dynamic", "-FP8-Dynamic", "-FP8", "-fp8", "-AWQ", "-GPTQ-Int4", "-GPTQ-Int8", "-W4A16", "-W8A8", "-NVFP4", "-MXFP4"}) {
    if (ends_with(name, quant)) names.push_back(name.substr(0, name.size() - std::string(quant).size()));
  }
  // Variants of one architecture: instruction-tuned, chat, reasoning, base and experimental
  // checkpoints (DeepSeek-V3.2-Exp has V3.2's layers and indexer).
  const auto without_variant = [](const std::string& n) {
    for (const char* suffix : {"-Instruct", "-instruct", "-Chat", "-chat", "-it", "-Base", "-Thinking", "-Exp"}) {
      if (ends_with(n, suffix)) return n.substr(0, n.size() - std::string(suffix).size());
    }
    return n;
  };
  for (std::size_t i = 0, n = names.size(); i < n; ++i) {
    if (without_variant(names[i]) != names[i]) names.push_back(without_variant(names[i]));
  }
  const std::vector<std::string> shipped = list_hub_configs();
  for (const std::string& candidate : names) {
    const std::string same_org = org.empty() ? candidate : org + "/" + candidate;
    if (loads(same_org)) return {same_org, "model " + model_path + " read as " + same_org + "'s layers"};
    for (const std::string& hub : shipped) {
      if (hub.size() > candidate.size() && ends_with(hub, "/" + candidate)) {
        return {hub, "model " + model_path + " read as " + hub + " (the same name under another organisation)"};
      }
    }
  }
  // Another variant shipped (Qwen3-Next's Thinking model as its Instruct one's config).
  for (const std::string& candidate : names) {
    for (const std::string& hub : shipped) {
      const std::string hub_name = hub.substr(hub.find('/') + 1);
      if (without_variant(hub_name) == without_variant(candidate)) {
        return {hub, "model " + model_path + " read as " + hub + " (another variant of the same architecture)"};
      }
    }
  }
  return {"", ""};
}

// --- Quantization labels ----------------------------------------------------------------------

// A weight format as the source's vocabulary labels it, with the type its GEMMs compute in
// (workloads/checkpoint_precision.hpp).
std::optional<LinearFormat> parse_quant_label(const std::string& label) {
  LinearFormat f;
  if (label == "float16" || label == "bfloat16" || label == "fp16" || label == "bf16") return f;
  if (label == "fp8" || label == "fp8_ootb" || label == "fp8_static" || label == "w8a8_fp8") {
    f.format.weights = f.activations = DType::fp8;
    return f;
  }
  if (label == "fp8_block") {
    f.format = {DType::fp8, 128};
    return f;
  }
  if (label == "nvfp4" || label == "w4a4_nvfp4") {
    f.format.weights = f.activations = DType::nvfp4;
    return f;
  }
  if (label == "mxfp4" || label == "w4a4_mxfp4") {
    f.format.weights = f.activations = DType::mxfp4;
    return f;
  }
  if (label == "w4a16_mxfp4") {
    f.format.weights = DType::mxfp4;
    f.weight_only = true;
    return f;
  }
  if (label == "int8" || label == "sq" || label == "int8_sq" || label == "w8a8" || label == "w8a8_sq") {
    f.format.weights = f.activations = DType::int8;
    return f;
  }
  if (label == "int4" || label == "int4_wo" || label == "w4a16" || label == "int4_awq" || label == "awq" || label == "gptq" ||
      label == "w4a16_awq" || label == "w4a16_gptq") {
    f.format.weights = DType::int4;
    f.weight_only = true;
    return f;
  }
  if (label == "int8_wo" || label == "w8a16") {
    f.format.weights = DType::int8;
    f.weight_only = true;
    return f;
  }
  return std::nullopt;
}

// A blank cell of the deployment's size filled in: said on the row, and the row no longer counts
// as one that gives its whole deployment (ServingCase::deployment_assumed).
void assume_deployment(ServingCase& c, const std::string& assumption) {
  c.deployment_assumed = true;
  c.assumptions.push_back(assumption);
}

// --- Parallel layouts -------------------------------------------------------------------------

// One instance's layout as the columns give it (`p`: "" aggregated, "prefill_" or "decode_").
struct ColumnLayout {
  std::int64_t tp = 1, pp = 1, ep = 1, moe_tp = 0;  // ep: attention-DP ranks, each its own scheduler
};

// The columns' layout as roofsim runs it: attention TP x DP ranks (roofsim's EP ranks, each its
// own attention), experts TP-split over moe_tp of each rank's tp chips and spread over the
// rest and over the ranks. Layouts roofsim has no form for run as the nearest one it has, said
// on the row.
ColumnLayout read_layout(const CsvRow& row, const std::string& p, bool moe, ServingCase& c) {
  const std::string who = p.empty() ? "" : p.substr(0, p.size() - 1) + " workers: ";
  ColumnLayout l;
  const std::optional<std::int64_t> tp = count(row, p + "tp_size");
  l.tp = tp.value_or(1);
  if (!tp) {
    // Not silently: a file without the column, or a blank cell, runs each worker on one GPU.
    assume_deployment(c, p + "tp_size " + (row.count(p + "tp_size") ? "blank" : "column missing") + ": tensor parallel 1");
  }
  l.pp = count(row, p + "pp_size").value_or(1);
  const std::int64_t dp = count(row, p + "attention_dp_size").value_or(1);
  const std::optional<std::int64_t> moe_tp = count(row, p + "moe_tp_size"), moe_ep = count(row, p + "moe_ep_size");
  if (!moe) {
    if (dp > 1) throw RowProblem{who + "data-parallel attention of a dense model (attention DP " + std::to_string(dp) + ") is not modelled"};
    return l;
  }
  if (c.harness == ServingCase::Harness::inferencemax && p.empty() && moe_tp && moe_ep && *moe_tp > 1 && *moe_ep > 1 &&
      *moe_tp % *moe_ep == 0 && l.tp * dp == *moe_tp * *moe_ep) {
    // InferenceMAX's TensorRT-LLM runs pass --tp_size T --ep_size E and run on T GPUs (its
    // single-node configs hold at most 8; E = T, or attention DP over them with dp-attn); its
    // rows came in as tp_size x attention_dp_size = moe_tp_size x moe_ep_size = T x E.
    const std::int64_t t = *moe_tp, e = *moe_ep;
    c.assumptions.push_back("layout tp_size " + std::to_string(l.tp) + " x attention_dp_size " + std::to_string(dp) + " = moe_tp_size " +
                            std::to_string(t) + " x moe_ep_size " + std::to_string(e) + " read as InferenceMAX's --tp_size " +
                            std::to_string(t) + " --ep_size " + std::to_string(e) + " on " + std::to_string(t) + " GPUs" +
                            (dp > 1 ? ", attention data parallel over them" : ""));
    if (dp > 1) {
      l.tp = 1;
      l.ep = t;  // each GPU an attention-DP rank holding experts / t
    } else {
      l.tp = t;
      l.moe_tp = t / e == t ? 0 : t / e;  // experts spread over e groups of the TP chips
    }
    return l;
  }
  std::int64_t gpus = l.tp * dp;  // per pipeline stage
  // Unset: experts TP-split like the rest (vLLM's default without --enable-expert-parallel),
  // or whatever the other of the two leaves.
  std::int64_t mtp = moe_tp.value_or(moe_ep ? std::max<std::int64_t>(1, gpus / *moe_ep) : gpus);
  std::int64_t mep = moe_ep.value_or(std::max<std::int64_t>(1, gpus / mtp));
  std::int64_t attention_dp = dp;
  if (mtp * mep > gpus && (mtp * mep) % l.tp == 0) {
    // More GPUs under the experts than under attention: the instance has the experts' GPUs, and
    // attention runs data parallel over them (vLLM's --data-parallel-size with expert parallelism).
    attention_dp = mtp * mep / l.tp;
    c.assumptions.push_back(who + "MoE TP " + std::to_string(mtp) + " x EP " + std::to_string(mep) + " over attention TP " +
                          std::to_string(l.tp) + " x DP " + std::to_string(dp) + ": " + std::to_string(mtp * mep) +
                          " GPUs, attention data parallel over " + std::to_string(attention_dp));
    gpus = mtp * mep;
  }
  if (mtp * mep != gpus) {
    c.assumptions.push_back(who + "MoE TP " + std::to_string(mtp) + " x EP " + std::to_string(mep) + " does not fill the " +
                          std::to_string(gpus) + " GPUs of attention TP " + std::to_string(l.tp) + " x DP " + std::to_string(dp) +
                          ": experts TP-split over " + std::to_string(std::min(mtp, gpus)) + " and spread over the rest");
    mtp = std::min(mtp, gpus);
    mep = gpus / mtp;
  }
  if (attention_dp == 1) {
    l.moe_tp = mtp == l.tp ? 0 : mtp;  // experts spread inside the TP group
    return l;
  }
  // Attention DP ranks: roofsim's EP ranks of tp chips, experts TP-split over the tp chips of
  // each rank and spread over the ranks.
  l.ep = attention_dp;
  if (mtp != l.tp) {
    c.assumptions.push_back(who + "MoE TP " + std::to_string(mtp) + " x EP " + std::to_string(mep) + " over attention DP " +
                          std::to_string(attention_dp) + " run as experts spread over the " + std::to_string(attention_dp) +
                          " DP ranks, TP-split over each rank's " + std::to_string(l.tp));
  }
  return l;
}

std::int64_t nodes_for(std::int64_t gpus) { return gpus > kGpusPerNode ? (gpus + kGpusPerNode - 1) / kGpusPerNode : 0; }

// --- Backends and versions ----------------------------------------------------------------------

// Leading numbers of a version ("1.1.0rc2.post2" -> {1, 1, 0}).
std::vector<int> version_numbers(const std::string& v) {
  std::vector<int> out;
  std::size_t i = 0;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
    int n = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) n = n * 10 + (v[i++] - '0');
    out.push_back(n);
    if (i < v.size() && v[i] == '.') ++i;
    else break;
  }
  return out;
}

// Whether aiconfigurator's generator passed --enable-mixed-chunk to an aggregated SGLang worker
// of this version: its templates from 0.5.3 on do; 0.5.1.post1's misspells the key. A blank
// version is a recent one.
bool sglang_mixed_chunk(const std::string& version) {
  static const std::vector<int> first = {0, 5, 3};
  const std::vector<int> v = version_numbers(version);
  return v.empty() || !std::lexicographical_compare(v.begin(), v.end(), first.begin(), first.end());
}

// The tokens aiconfigurator's generator allows an iteration beyond its prompts (rule_plugin/*.rule:
// max_num_tokens = batch + isl + 1500, max_prefill_tokens = isl + 1500).
constexpr std::int64_t kGeneratorSpareTokens = 1500;

// The stack (configs/stacks) a backend and version run as; versions without a stack of their
// own take the nearest documented one, said on the row.
std::string backend_stack(const std::string& backend, const std::string& version, std::vector<std::string>& assumptions) {
  if (backend == "trtllm") {
    const std::vector<int> v = version_numbers(version);
    if (!version.empty() && (v.empty() || v[0] != 1)) {
      assumptions.push_back("TensorRT-LLM version '" + version + "' run as trtllm-1.x (the PyTorch flow; nearest documented)");
    }
    return "trtllm-1.x";
  }
  const std::vector<int> v = version_numbers(version);
  if (backend == "vllm" && !v.empty() && (v[0] == 0 && v.size() > 1 && v[1] < 8)) {
    assumptions.push_back("vLLM version '" + version + "' (the V0 engine) run as vllm, V1's scheduler (nearest documented)");
  }
  if (backend == "sglang" && !v.empty() && (v[0] > 0 || (v.size() > 1 && v[1] > 5))) {
    assumptions.push_back("SGLang version '" + version + "' run as sglang, the 0.5.x behaviour (extend batches eager; later releases "
                          "capture them as piecewise CUDA graphs by default)");
  }
  return backend;
}

void fill_concurrency(ServingCase& c, const CsvRow& row, std::int64_t limit) {
  const std::optional<std::int64_t> conc = count(row, "silicon_concurrency");
  if (conc) {
    c.concurrency = *conc;
  } else {
    c.concurrency = limit;
    assume_deployment(c, "concurrency " + std::string(cell(row, "silicon_concurrency").empty() ? "blank" : "0") +
                            ": taken as the deployment's batch limit, " + std::to_string(limit));
  }
}

// A recipe pool's layout as roofsim runs it (ColumnLayout).
ColumnLayout recipe_layout(const RecipePool& p) {
  ColumnLayout l;
  if (p.layout == "dep") {
    l.ep = p.gpus;  // each GPU an attention-DP rank holding experts / gpus
  } else {
    l.tp = p.gpus;
    if (p.layout == "tep") l.moe_tp = 1;  // experts spread over the TP group
  }
  return l;
}

// An InferenceMAX disaggregated row's deployment from the recipes its configs name at the row's
// concurrency (configs/harnesses/inferencemax_disagg.csv), narrowed by what the row gives; the
// fields they agree on are applied, and said on the row. False: no recipe at that point.
bool deploy_inferencemax_recipe(const CsvRow& row, ServingCase& c) {
  const std::optional<std::int64_t> pw = count(row, "prefill_num_workers"), dw = count(row, "decode_num_workers");
  const std::optional<std::int64_t> decode_ep = count(row, "decode_moe_ep_size");
  const std::optional<RecipeDeployment> d =
      recipe_deployment(inferencemax_disagg_recipes(), c.backend, c.system, c.isl, c.osl, c.concurrency, pw, dw,
                        decode_ep ? std::optional<bool>(*decode_ep > 1) : std::nullopt);
  if (!d) return false;
  std::string said = "deployed as InferenceMAX's recipe" + std::string(d->recipes.size() > 1 ? "s" : "") + " for concurrency " +
                     std::to_string(c.concurrency) + " (" + d->recipes.front() + (d->recipes.size() > 1 ? " and " + std::to_string(d->recipes.size() - 1) + " more" : "") + ")";
  std::vector<std::string> unknown;
  if (d->prefill_workers) c.prefill_instances = *d->prefill_workers; else unknown.push_back("prefill workers");
  if (d->decode_workers) c.decode_instances = *d->decode_workers; else unknown.push_back("decode workers");
  if (d->prefill) {
    const ColumnLayout l = recipe_layout(*d->prefill);
    c.prefill_tp = l.tp;
    c.prefill_ep = l.ep;
    c.prefill_moe_tp = l.moe_tp;
    c.prefill_max_batch = d->prefill->max_batch;
    c.prefill_max_tokens = d->prefill->max_tokens;
    said += "; prefill " + d->prefill->layout + std::to_string(d->prefill->gpus) + ", " + std::to_string(d->prefill->max_batch) +
            " prompts and " + std::to_string(d->prefill->max_tokens) + " tokens per iteration";
  } else {
    unknown.push_back("prefill layout");
  }
  if (d->decode) {
    const ColumnLayout l = recipe_layout(*d->decode);
    c.tp = c.decode_tp = l.tp;
    c.ep = l.ep;
    c.moe_tp = l.moe_tp;
    // SGLang's --max-running-requests is the worker's, split over its DP-attention ranks.
    const std::int64_t ranks = l.ep;
    c.batch = c.backend == "sglang" ? (d->decode->max_batch + ranks - 1) / ranks : d->decode->max_batch;
    c.batch_from_recipe = true;
    c.decode_first_response = d->decode->first_response;
    said += "; decode " + d->decode->layout + std::to_string(d->decode->gpus) + ", at most " + std::to_string(d->decode->max_batch) +
            (c.backend == "sglang" ? " running per worker" : " per scheduler");
    if (count(row, "decode_batch_size")) said += " (the row's decode_batch_size, concurrency / decode workers, is not a limit)";
  } else {
    unknown.push_back("decode layout and batch");
  }
  if (d->without_speculation) said += "; of the recipes at this concurrency, those without MTP (the others deploy otherwise; MTP is not simulated)";
  if (d->mtp && *d->mtp > 0) said += "; its MTP drafts " + std::to_string(*d->mtp) + " tokens per step, not simulated (no acceptance rate for these runs)";
  if (!d->mtp) said += "; with or without MTP (the recipes differ; not simulated)";
  if (!unknown.empty()) {
    std::string list;
    for (const std::string& u : unknown) list += (list.empty() ? "" : ", ") + u;
    said += "; the recipes differ in " + list;
  }
  c.assumptions.push_back(said);
  if (!d->prefill_workers || !d->decode_workers || !d->decode) c.deployment_assumed = true;
  return true;
}

// The disaggregated columns: each pool's layout, worker counts and limits, or an InferenceMAX
// recipe's where the row leaves them out.
void read_disaggregated(const CsvRow& row, bool moe, ServingCase& c) {
  const ColumnLayout pre = read_layout(row, "prefill_", moe, c), dec = read_layout(row, "decode_", moe, c);
  if (pre.pp > 1 || dec.pp > 1) throw RowProblem{"pipeline-parallel disaggregated workers are not modelled"};
  c.tp = c.decode_tp = dec.tp;
  c.ep = dec.ep;
  c.moe_tp = dec.moe_tp;
  c.prefill_tp = pre.tp;
  c.prefill_ep = pre.ep;
  c.prefill_moe_tp = pre.moe_tp;
  const std::optional<std::int64_t> pw = count(row, "prefill_num_workers"), dw = count(row, "decode_num_workers");
  const std::optional<std::int64_t> pb = count(row, "prefill_batch_size"), db = count(row, "decode_batch_size");
  c.prefill_instances = pw.value_or(1);
  c.decode_instances = dw.value_or(1);
  fill_concurrency(c, row, db.value_or(0) * c.decode_instances * dec.ep);
  if (c.concurrency <= 0) throw RowProblem{"neither silicon_concurrency nor decode_batch_size is given"};
  c.prefill_batch = pb.value_or(1);
  const bool recipe = c.harness == ServingCase::Harness::inferencemax && deploy_inferencemax_recipe(row, c);
  if (!recipe && (!pw || !dw)) assume_deployment(c, "disaggregated worker counts blank: one prefill and one decode worker");
  if (c.batch_from_recipe) return;
  if (db) {
    c.batch = *db;
  } else {
    c.batch = (c.concurrency + c.decode_instances * c.ep - 1) / (c.decode_instances * c.ep);
    assume_deployment(c, "decode_batch_size blank: each decode scheduler's batch limit holds its share of the clients, " +
                            std::to_string(c.batch));
  }
  if (!recipe && !pb) assume_deployment(c, "prefill_batch_size blank: 1 prompt per prefill iteration (TensorRT-LLM) or the stack's token budget");
}

ServingCase read_row(const std::string& path, const CsvRow& row, std::map<std::string, ModelMatch>& models,
                     std::map<std::string, HardwareSpec>& hardware) {
  ServingCase c;
  c.file = path;
  c.id = cell(row, "id");
  c.line = std::stol(row.at("#line"));
  c.system = cell(row, "system");
  c.model_path = cell(row, "model_path");
  c.mode = cell(row, "mode");
  if (!cell(row, "backend").empty()) c.backend = cell(row, "backend");
  c.backend_version = cell(row, "backend_version");
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
    const SoftwareStack stack = load_stack(stack_name);
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
      d.routing = DisaggregationConfig::Routing::round_robin;
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
      if (!c.disaggregated && sglang_mixed_chunk(c.backend_version)) setup.scheduler.priority = SchedulerConfig::Priority::decode_first;
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
