#include "serving/harness_recipes.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/presets.hpp"
#include "serving/serving.hpp"

namespace roofsim {

namespace {

// More spare tokens than any launch script adds: a typo.
constexpr std::int64_t kMaxSpareTokens = 1 << 20;

RecipePool read_pool(const std::string& path, const CsvRow& row, const std::string& role) {
  RecipePool p;
  p.workers = csv_positive_integer(path, row, role + "_workers");
  p.layout = csv_text(path, row, role + "_layout");
  if (p.layout != "tp" && p.layout != "tep" && p.layout != "dep") {
    throw InputError(path + ":" + row.at("#line") + ": " + role + "_layout: expected tp, tep or dep, got '" + p.layout + "'");
  }
  p.gpus = csv_positive_integer(path, row, role + "_gpus");
  p.max_batch = csv_positive_integer(path, row, role + "_max_batch");
  if (role == "prefill") p.max_tokens = csv_positive_integer(path, row, "prefill_max_tokens");
  if (role == "decode") p.first_response = csv_positive_integer(path, row, "decode_first_response");
  return p;
}

}  // namespace

std::vector<HarnessRecipe> load_harness_recipes(const std::string& path) {
  std::vector<HarnessRecipe> out;
  for (const CsvRow& row : read_csv(path)) {
    HarnessRecipe r;
    std::istringstream models(csv_text(path, row, "models"));
    for (std::string m; models >> m;) r.models.push_back(m);
    if (r.models.empty()) throw InputError(path + ":" + row.at("#line") + ": models: expected the model_path values the recipe deploys, got none");
    r.framework = csv_text(path, row, "framework");
    r.system = csv_text(path, row, "system");
    r.isl = csv_positive_integer(path, row, "isl");
    r.osl = csv_positive_integer(path, row, "osl");
    r.concurrency = csv_positive_integer(path, row, "concurrency");
    r.mtp = csv_integer(path, row, "mtp");
    if (r.mtp < 0) throw InputError(path + ":" + row.at("#line") + ": mtp: expected 0 or more draft tokens, got " + std::to_string(r.mtp));
    r.prefill = read_pool(path, row, "prefill");
    r.decode = read_pool(path, row, "decode");
    r.recipe = csv_text(path, row, "recipe");
    r.line = std::stol(row.at("#line"));
    out.push_back(std::move(r));
  }
  return out;
}

const std::vector<HarnessRecipe>& inferencemax_disagg_recipes() {
  static const std::vector<HarnessRecipe> recipes =
      load_harness_recipes((std::filesystem::path(config_dir()) / "harnesses" / "inferencemax_disagg.csv").string());
  return recipes;
}

std::vector<HarnessBudget> load_harness_budgets(const std::string& path) {
  std::vector<HarnessBudget> out;
  for (const CsvRow& row : read_csv(path)) {
    HarnessBudget b;
    b.framework = csv_text(path, row, "framework");
    b.model_contains = row.count("model_contains") ? row.at("model_contains") : std::string();
    b.max_num_tokens = csv_positive_integer(path, row, "max_num_tokens");
    b.spare_tokens = csv_integer(path, row, "spare_tokens");
    if (b.spare_tokens < 0 || b.spare_tokens > kMaxSpareTokens) {
      throw InputError(path + ":" + row.at("#line") + ": spare_tokens: expected 0 to " + std::to_string(kMaxSpareTokens) + ", got " +
                       std::to_string(b.spare_tokens));
    }
    const std::string& kv = csv_text(path, row, "kv_cache_dtype");
    if (kv != "fp8" && kv != "auto") throw InputError(path + ":" + row.at("#line") + ": kv_cache_dtype: expected fp8 or auto, got '" + kv + "'");
    b.fp8_kv_cache = kv == "fp8";
    const std::string& overlap = csv_text(path, row, "overlap_loop");
    if (overlap != "on" && overlap != "default") {
      throw InputError(path + ":" + row.at("#line") + ": overlap_loop: expected on or default, got '" + overlap + "'");
    }
    b.overlap_loop = overlap == "on";
    b.launch_script = csv_text(path, row, "launch_script");
    b.line = std::stol(row.at("#line"));
    out.push_back(std::move(b));
  }
  return out;
}

const std::vector<HarnessBudget>& inferencemax_budgets() {
  static const std::vector<HarnessBudget> budgets =
      load_harness_budgets((std::filesystem::path(config_dir()) / "harnesses" / "inferencemax_budgets.csv").string());
  return budgets;
}

const HarnessBudget* harness_budget(const std::vector<HarnessBudget>& budgets, const std::string& framework,
                                    const std::string& model_path) {
  for (const HarnessBudget& b : budgets) {
    if (b.framework == framework && (b.model_contains.empty() || model_path.find(b.model_contains) != std::string::npos)) return &b;
  }
  return nullptr;
}

std::vector<HarnessScheduling> load_harness_scheduling(const std::string& path) {
  std::vector<HarnessScheduling> out;
  for (const CsvRow& row : read_csv(path)) {
    HarnessScheduling h;
    const std::string where = path + ":" + row.at("#line") + ": ";
    // A whole number from 0 (not set, or any) to the largest count a scheduler setting takes.
    auto count = [&](const char* column) {
      const std::int64_t n = csv_integer(path, row, column);
      if (n < 0 || n > SchedulerConfig::kMaxBatchWaitIters) {
        throw InputError(where + column + ": expected 0 to " + std::to_string(SchedulerConfig::kMaxBatchWaitIters) + ", got " + std::to_string(n));
      }
      return n;
    };
    h.framework = csv_text(path, row, "framework");
    h.model_contains = csv_text(path, row, "model_contains");
    h.isl = count("isl");
    h.osl = count("osl");
    h.tp_below = count("tp_below");
    h.batch_wait_iters = count("batch_wait_iters");
    h.batch_wait_tokens_ratio = csv_number(path, row, "batch_wait_tokens_ratio");
    if (!(h.batch_wait_tokens_ratio >= 0 && h.batch_wait_tokens_ratio <= 1)) {
      throw InputError(where + "batch_wait_tokens_ratio: expected a share of the budget in [0, 1], got " + row.at("batch_wait_tokens_ratio"));
    }
    if ((h.batch_wait_iters > 0) != (h.batch_wait_tokens_ratio > 0)) {
      throw InputError(where + "batch_wait_iters and batch_wait_tokens_ratio: set both or neither (TensorRT-LLM waits only with both)");
    }
    h.adp_balance_timeout_iters = count("adp_balance_timeout_iters");
    h.adp_batching_wait_iters = count("adp_batching_wait_iters");
    h.launch_script = csv_text(path, row, "launch_script");
    h.line = std::stol(row.at("#line"));
    out.push_back(std::move(h));
  }
  return out;
}

const std::vector<HarnessScheduling>& inferencemax_scheduling() {
  static const std::vector<HarnessScheduling> lines =
      load_harness_scheduling((std::filesystem::path(config_dir()) / "harnesses" / "inferencemax_scheduling.csv").string());
  return lines;
}

const HarnessScheduling* harness_scheduling(const std::vector<HarnessScheduling>& lines, const std::string& framework,
                                            const std::string& model_path, std::int64_t isl, std::int64_t osl, std::int64_t tp) {
  for (const HarnessScheduling& h : lines) {
    if (h.framework == framework && model_path.find(h.model_contains) != std::string::npos && (h.isl == 0 || h.isl == isl) &&
        (h.osl == 0 || h.osl == osl) && (h.tp_below == 0 || tp < h.tp_below)) {
      return &h;
    }
  }
  return nullptr;
}

std::int64_t budget_tokens(const HarnessBudget& b, std::int64_t concurrency, std::int64_t prompt) {
  if (b.spare_tokens == 0) return b.max_num_tokens;
  return std::max(b.max_num_tokens, (concurrency + prompt + b.spare_tokens + 63) / 64 * 64);
}

std::optional<RecipeDeployment> recipe_deployment(const std::vector<HarnessRecipe>& recipes, const std::string& model,
                                                  const std::string& framework, const std::string& system, std::int64_t isl, std::int64_t osl,
                                                  std::int64_t concurrency, std::optional<std::int64_t> prefill_workers,
                                                  std::optional<std::int64_t> decode_workers, std::optional<bool> decode_expert_parallel) {
  std::vector<const HarnessRecipe*> found;
  for (const HarnessRecipe& r : recipes) {
    if (r.framework != framework || r.system != system || r.isl != isl || r.osl != osl || r.concurrency != concurrency) continue;
    if (std::find(r.models.begin(), r.models.end(), model) == r.models.end()) continue;
    if (prefill_workers && r.prefill.workers != *prefill_workers) continue;
    if (decode_workers && r.decode.workers != *decode_workers) continue;
    found.push_back(&r);
  }
  if (found.empty()) return std::nullopt;
  // Keeps the recipes that pass, when some do; true when that left some out.
  auto narrow = [&found](auto keep) {
    std::vector<const HarnessRecipe*> kept;
    for (const HarnessRecipe* r : found) {
      if (keep(*r)) kept.push_back(r);
    }
    if (kept.empty() || kept.size() == found.size()) return false;
    found = std::move(kept);
    return true;
  };
  if (decode_expert_parallel) narrow([&](const HarnessRecipe& r) { return (r.decode.layout != "tp") == *decode_expert_parallel; });
  // A field is known when every recipe left agrees on it.
  auto agreed = [&](auto field) -> std::optional<std::decay_t<decltype(field(*found.front()))>> {
    for (const HarnessRecipe* r : found) {
      if (!(field(*r) == field(*found.front()))) return std::nullopt;
    }
    return field(*found.front());
  };
  RecipeDeployment d;
  const bool deployments_agree = agreed([](const HarnessRecipe& r) { return r.prefill; }) && agreed([](const HarnessRecipe& r) { return r.decode; });
  if (!deployments_agree) d.without_speculation = narrow([](const HarnessRecipe& r) { return r.mtp == 0; });
  d.prefill_workers = agreed([](const HarnessRecipe& r) { return r.prefill.workers; });
  d.decode_workers = agreed([](const HarnessRecipe& r) { return r.decode.workers; });
  d.mtp = agreed([](const HarnessRecipe& r) { return r.mtp; });
  d.prefill = agreed([](const HarnessRecipe& r) { return r.prefill; });
  d.decode = agreed([](const HarnessRecipe& r) { return r.decode; });
  for (const HarnessRecipe* r : found) d.recipes.push_back(r->recipe);
  return d;
}

}  // namespace roofsim
