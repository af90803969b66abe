#pragma once
// The deployment search: for a model, a number of GPUs and SLOs, serving runs over parallelism
// layouts (replicas of tensor-parallel groups, optionally in pipeline stages, and optionally
// disaggregated prefill/decode splits) and
// closed-loop concurrencies, and the Pareto front of output tokens/s per GPU against tokens/s
// per user among the points that meet the SLOs.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiment/progress.hpp"
#include "serving/serving.hpp"

namespace roofsim {

struct SearchSpec {
  // Everything but the layout and the load: machine (hw, model, dtypes...), prompt and output
  // lengths, scheduler, KV cache, SLOs. Its tp, disaggregation and arrivals are replaced.
  ServingSetup base;
  std::int64_t gpus = 8;
  // TP degrees to try; empty: every power of two dividing `gpus` that the model can split into.
  std::vector<std::int64_t> tps;
  // Pipeline stages to try with each TP degree (colocated replicas of tp x pp chips; each
  // stage runs its own micro-batch); empty: 1.
  std::vector<std::int64_t> pps;
  // Expert-parallel degrees to try with each TP and PP (colocated replicas of tp x ep x pp
  // chips, attention data parallel over the EP ranks; MoE models only); empty: 1.
  std::vector<std::int64_t> eps;
  // Closed-loop clients per replica (colocated) or per decode instance (disaggregated);
  // empty: 1, 2, 4, ..., 256.
  std::vector<std::int64_t> concurrencies;
  // Also try every split of the GPUs into P prefill instances of tp_p x ep chips and D decode
  // instances of tp_d x ep chips (P * tp_p * ep + D * tp_d * ep == gpus; tp_p, tp_d from the TP
  // list, ep from the EP list).
  bool disaggregated = false;
  // Requests per closed-loop client: each run serves this many times its concurrency.
  std::int64_t requests_per_client = 8;
};

struct SearchPoint {
  std::string layout;  // "tp2 x4" (TP 2, 4 replicas), "tp2 pp2 x2" (and 2 stages), "tp1 ep4 x2", "1P(tp2)+3D(tp2)" or "1P(tp1 ep2)+1D(tp2 ep2)"
  bool disaggregated = false;
  std::int64_t ep = 1;  // expert-parallel ranks of every replica or instance
  std::int64_t tp = 0, pp = 0, replicas = 0;  // colocated
  std::int64_t prefill_instances = 0, prefill_tp = 0, decode_instances = 0, decode_tp = 0;  // disaggregated
  std::int64_t concurrency = 0;        // per replica, or per decode instance
  std::int64_t total_concurrency = 0;  // clients over all the GPUs
  std::int64_t requests = 0;           // simulated (one replica's when colocated)
  double tok_s = 0;                    // output tokens/s over all the GPUs
  double tok_s_per_gpu = 0, tok_s_per_user = 0;
  double ttft_p90_s = 0, tpot_mean_s = 0, slo_attainment = 0;
  bool meets_slo = false;  // slo_attainment >= 0.9, or no SLO set
  bool pareto = false;
  std::string error;  // not empty: the layout could not run (InputError's message); no numbers
  bool ok() const { return error.empty(); }
};

// The concurrencies tried when a spec gives none.
std::vector<std::int64_t> default_search_concurrencies();
// The TP degrees a spec's empty list stands for: the powers of two dividing `gpus` that the
// model's heads allow. Throws InputError when the model cannot be loaded.
std::vector<std::int64_t> default_search_tps(const SearchSpec& spec);

// Indices of the points on the Pareto front: those that ran, meet the SLOs, and that no other
// such point dominates (at least as high in both tok_s_per_user and tok_s_per_gpu, higher in
// one). Points equal in both are all on it. Sorted by tok_s_per_user, then tok_s_per_gpu
// (falling), then index.
std::vector<std::size_t> pareto_front(const std::vector<SearchPoint>& points);

// Runs the search: layouts in order (colocated by stages and TP, then the disaggregated splits), each at
// every concurrency. A point the model or machine cannot run (InputError) is kept with its
// error; anything else propagates. Marks the Pareto points. Throws InputError for a spec that
// gives nothing to run, Cancelled when `control` asks. Progress: points done.
// The serving settings a search takes, as serve takes them (the same flags, defaults and checks
// from the serving table): the workload's lengths, the scheduler's limits, the SLOs.
const std::vector<std::string>& search_serving_settings();

std::vector<SearchPoint> run_search(const SearchSpec& spec, const RunControl& control = {});

// One row per point (skipped ones with their error, settings named as `names` says).
std::string search_csv(const std::vector<SearchPoint>& points, SettingNames names = SettingNames::key);
nlohmann::json search_points_json(const std::vector<SearchPoint>& points, SettingNames names = SettingNames::key);
// FILE.png or FILE.svg (gnuplot): tokens/s per user across, tokens/s per GPU up; a series per
// layout (filled where the point meets the SLOs, grey rings where it misses them), the Pareto
// front as a line labelled with its concurrencies. Throws InputError when no point ran or
// gnuplot fails.
void write_search_plot(const std::string& path, const std::vector<std::string>& title, const std::vector<SearchPoint>& points);

}  // namespace roofsim
