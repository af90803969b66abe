#include "experiment/kernel_table_rows.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/parse.hpp"
#include "experiment/collective.hpp"
#include "experiment/results.hpp"
#include "experiment/single_op.hpp"
#include "experiment/stack.hpp"
#include "workloads/attention_kernel.hpp"

namespace roofsim {

namespace {

namespace fs = std::filesystem;



// Size buckets, each up to (not including) its bound. Compute kernels by measured latency:
// launch-bound, small, medium, large. Collectives by message size: latency-bound, protocol
// cross-over, bandwidth-bound.
struct Bucket {
  double upper;
  const char* name;
};
constexpr double kNoBound = 1e300;

// The attention rows' RoPE: the public benchmark's collector (aiconfigurator, TensorRT-LLM
// attention collector) builds every call with RopeParams(dim=128), whatever the head, so a
// head of 64 has a rotary part wider than itself.
constexpr std::int64_t kBenchmarkRotaryDim = 128;
const std::vector<Bucket> kLatencyBuckets = {{10e-6, "< 10 us"}, {50e-6, "10-50 us"}, {500e-6, "50-500 us"}, {kNoBound, ">= 500 us"}};
const std::vector<Bucket> kSizeBuckets = {{64.0 * 1024 + 1, "<= 64 KiB"}, {1024.0 * 1024 + 1, "64 KiB-1 MiB"},
                                          {32.0 * 1024 * 1024 + 1, "1-32 MiB"}, {kNoBound, "> 32 MiB"}};

std::string bucket_of(double value, const std::vector<Bucket>& buckets) {
  for (const Bucket& b : buckets) {
    if (value < b.upper) return b.name;
  }
  return buckets.back().name;
}

}  // namespace

// Buckets sort by the sizes they hold, as the tables above list them.
std::size_t bucket_rank(const std::string& name) {
  std::size_t rank = 0;
  for (const auto* table : {&kLatencyBuckets, &kSizeBuckets}) {
    for (const Bucket& b : *table) {
      if (name == b.name) return rank;
      ++rank;
    }
  }
  return rank;
}

std::string kernel_latency_bucket(double seconds) { return bucket_of(seconds, kLatencyBuckets); }
std::string kernel_size_bucket(double bytes) { return bucket_of(bytes, kSizeBuckets); }

std::string kernel_row_source(const std::string& path, const CsvRow& row) {
  return fs::path(path).filename().string() + ":" + row.at("#line");
}

double kernel_row_measured_seconds(const std::string& path, const CsvRow& row) {
  const double ms = csv_positive_number(path, row, "latency");  // the tables hold milliseconds
  if (ms > 1e6) throw InputError(path + ":" + row.at("#line") + ": latency: " + format_general(ms) + " ms is beyond any kernel (at most 1e6)");
  return ms * 1e-3;
}

// A measured call's ops simulated one after another: from the first's start to the last's end.
double call_seconds(const HardwareSpec& hw, const std::vector<OpSpec>& ops) { return call_totals(run_ops(hw, false, ops)).sim_s; }

// A call its benchmark replays eagerly, back to back (no CUDA graph): the host spends `host_s`
// on each call, launching its ops evenly through that time, and the chip runs each op once it
// is launched and the op before has ended. The second call's period is the steady state: the
// host's time where the chip is quicker, the chip's where the host keeps ahead. It emerges from
// the events; nothing takes the larger of the two.
double eager_call_seconds(const HardwareSpec& hw, const std::vector<OpSpec>& call, double host_s) {
  std::vector<OpSpec> ops;
  std::vector<double> launched_at_s;
  const std::size_t n = call.size();
  for (int c = 0; c < 2; ++c) {
    for (std::size_t i = 0; i < n; ++i) {
      ops.push_back(call[i]);
      launched_at_s.push_back(host_s * (c + static_cast<double>(i + 1) / static_cast<double>(n)));
    }
  }
  const OpsRunResult r = run_ops(hw, false, ops, Granularity::coarse, kDefaultMaxEvents, launched_at_s);
  return to_seconds(r.ops[2 * n - 1].result.end_ps - r.ops[n - 1].result.end_ps);
}

// A host time in seconds from one of a stack's host-time tables ([eager_calls] or
// [profiled_layers], microseconds); none when the table has no such key.
std::optional<double> table_host_s(const std::map<std::string, double>& table_us, const std::string& key) {
  auto found = table_us.find(key);
  if (found == table_us.end()) return std::nullopt;
  return found->second * 1e-6;
}

// TensorRT-LLM's stack, whose tables most kernel rows read, loaded once (a thread-safe static).
const SoftwareStack& trtllm_stack() {
  static const SoftwareStack s = load_stack("trtllm-1.x");
  return s;
}


namespace {

// An attention table's type column; nullopt for one roofsim does not model.
std::optional<DType> attention_dtype(const std::string& text) {
  if (text == "bfloat16") return DType::bf16;
  if (text == "fp8") return DType::fp8;
  return std::nullopt;
}

}  // namespace

// context_attention.csv (prefill: `batch_size` prompts of `isl` tokens, causal) and
// generation_attention.csv (decode: one new token per sequence over a cache of isl + step
// tokens): one call of TensorRT-LLM's attention op on one layer's heads, with its window
// (attention_call_ops, experiment/single_op.hpp).
std::vector<PendingRow> attention_rows(const std::string& path, const HardwareSpec& hw, bool prefill) {
  std::vector<PendingRow> out;
  for (const CsvRow& row : read_csv(path)) {
    AttentionShape s;
    s.sequences = csv_positive_integer(path, row, "batch_size");
    const std::int64_t isl = csv_positive_integer(path, row, "isl");
    s.heads = csv_positive_integer(path, row, "num_heads");
    s.kv_heads = csv_positive_integer(path, row, "num_key_value_heads");
    s.head_dim = csv_positive_integer(path, row, "head_dim");
    const std::string where = path + ":" + row.at("#line") + ": ";
    if (s.heads % s.kv_heads != 0) throw InputError(where + "num_key_value_heads must divide num_heads");
    const std::int64_t window = csv_integer(path, row, "window_size");
    const std::int64_t step = prefill ? 0 : csv_integer(path, row, "step");
    if (window < 0 || step < 0) throw InputError(where + "window_size and step must not be negative");
    for (std::int64_t v : {s.sequences, isl, s.heads, s.head_dim, step, window}) {
      if (v > (std::int64_t{1} << 24)) throw InputError(where + "a size beyond any attention call (at most 2^24)");
    }
    // The kernel's operands (queries, keys, values) stay far from int64's range.
    const double elements = static_cast<double>(s.sequences) * static_cast<double>(s.heads) *
                            static_cast<double>(isl + step) * static_cast<double>(s.head_dim);
    if (elements > std::ldexp(1.0, 48)) throw InputError(where + "batch x heads x tokens x head_dim beyond 2^48 elements");
    s.prefill = prefill;
    s.new_tokens = prefill ? isl : 1;
    s.context = prefill ? isl : isl + step;
    s.window = window;
    s.rotary_dim = kBenchmarkRotaryDim;
    const std::string& attn_text = csv_text(path, row, "attn_dtype");
    const std::string& kv_text = csv_text(path, row, "kv_cache_dtype");
    const std::optional<DType> attn = attention_dtype(attn_text), kv = attention_dtype(kv_text);
    PendingRow p;
    std::vector<OpSpec> ops;
    if (!attn || !kv) {
      p.not_simulated_reason = "attention in " + attn_text + " on a " + kv_text + " cache is not modelled (bfloat16 and fp8 are)";
    } else if ((*attn == DType::fp8 || *kv == DType::fp8) && !hw.matrix_supports(DType::fp8)) {
      p.not_simulated_reason = hw.name + " does not compute in fp8";
    } else {
      s.precision.activations = *attn;
      s.precision.kv = *kv;
      ops = attention_call_ops(s, "trtllm");
    }
    p.result.family = std::string(prefill ? "context attention " : "generation attention ") +
                      (attn ? std::string(dtype_name(*attn)) : attn_text) + "/" + (kv ? std::string(dtype_name(*kv)) : kv_text);
    p.result.label = "b" + std::to_string(s.sequences) + " isl" + std::to_string(isl) + " h" + std::to_string(s.heads) + "/" +
                     std::to_string(s.kv_heads) + "x" + std::to_string(s.head_dim) + (window > 0 ? " w" + std::to_string(window) : "");
    p.result.source = kernel_row_source(path, row);
    p.result.measured_s = kernel_row_measured_seconds(path, row);
    p.result.bucket = kernel_latency_bucket(p.result.measured_s);
    if (p.not_simulated_reason.empty()) p.simulate = [&hw, ops = std::move(ops)] { return call_seconds(hw, ops); };
    out.push_back(std::move(p));
  }
  return out;
}

// moe.csv: one MoE layer's experts on one GPU (TensorRT-LLM CUTLASS MoE): moe_layer_ops.
std::vector<PendingRow> moe_rows(const std::string& path, const HardwareSpec& hw) {
  std::vector<PendingRow> out;
  std::vector<std::string> cache_names;  // each row's tuning cache name, as the collector builds it
  std::vector<std::array<std::int64_t, 3>> runner_keys;  // and its autotuner key: top-k, TP, EP
  for (const CsvRow& row : read_csv(path)) {
    const std::string where = path + ":" + row.at("#line") + ": ";
    MoeCall m;
    m.tokens = csv_positive_integer(path, row, "num_tokens");
    m.hidden = csv_positive_integer(path, row, "hidden_size");
    m.inter = csv_positive_integer(path, row, "inter_size");
    m.topk = csv_positive_integer(path, row, "topk");
    m.experts = csv_positive_integer(path, row, "num_experts");
    m.tp = csv_positive_integer(path, row, "moe_tp_size");
    m.ep = csv_positive_integer(path, row, "moe_ep_size");
    for (std::int64_t v : {m.tokens, m.hidden, m.inter, m.topk, m.experts, m.tp, m.ep}) {
      if (v > (std::int64_t{1} << 24)) throw InputError(where + "a size beyond any MoE layer (at most 2^24)");
    }
    try {
      check_moe_call(m);
    } catch (const InputError& e) {
      throw InputError(where + e.what());
    }
    const std::string& source = csv_text(path, row, "kernel_source");
    m.gated = source != "moe_torch_flow_nongated";
    const std::string& dist = csv_text(path, row, "distribution");
    if (dist == "balanced") {
      m.power_law = 0;
    } else if (dist.rfind("power_law_", 0) == 0) {
      const auto a = parse_number(dist.substr(10));
      if (!a || *a <= 0 || *a > 10) throw InputError(where + "distribution: expected power_law_A with A in (0, 10], got '" + dist + "'");
      m.power_law = *a;
    } else {
      throw InputError(where + "distribution: unknown '" + dist + "' (expected balanced or power_law_A)");
    }
    const std::string& dtype = csv_text(path, row, "moe_dtype");
    cache_names.push_back(dtype + "_" + std::to_string(m.hidden) + "_" + std::to_string(m.inter / m.tp) + "_" +
                          std::to_string(m.experts / m.ep));
    runner_keys.push_back({m.topk, m.tp, m.ep});
    PendingRow p;
    p.result.family = "moe " + dtype;
    p.result.label = std::to_string(m.tokens) + " tok, " + std::to_string(m.experts) + "x" + std::to_string(m.hidden) + "x" +
                     std::to_string(m.inter) + " top" + std::to_string(m.topk) + " tp" + std::to_string(m.tp) + " ep" +
                     std::to_string(m.ep) + " " + dist;
    p.result.source = kernel_row_source(path, row);
    p.result.measured_s = kernel_row_measured_seconds(path, row);
    p.result.bucket = kernel_latency_bucket(p.result.measured_s);
    if (dtype != "bfloat16" && !hw.matrix_supports(DType::fp8) && (dtype == "fp8" || dtype == "fp8_block")) {
      p.not_simulated_reason = hw.name + " does not compute in fp8";
    } else if (dtype == "bfloat16" || dtype == "fp8" || dtype == "fp8_block" || dtype == "w4a16_mxfp4") {
      m.dtype = dtype == "bfloat16" || dtype == "w4a16_mxfp4" ? DType::bf16 : DType::fp8;
      if (dtype == "fp8_block") m.scale_block_k = 128;
      // Weight-only: mxfp4 experts converted to bf16 in the grouped GEMMs, bf16 activations.
      if (dtype == "w4a16_mxfp4") m.weight_only = DType::mxfp4;
      // Hopper's mxfp4 experts run TensorRT-LLM's Triton MoE (collect_moe.py sets moe_backend
      // "triton" below SM100; kernel_source moe_torch_flow). Its calls measure 70-130 us
      // whatever their work (one token on one local expert: 72 us), the host's time per call of
      // a benchmark that replays them eagerly (benchmark_with_power falls back to eager launches
      // when the CUDA graph capture fails), not any kernel's: the host time per call of that
      // path is a stack parameter ([eager_calls] moe_torch_flow).
      std::optional<double> eager_host_s;
      if (dtype == "w4a16_mxfp4" && source == kWeightOnlyMoeEagerCall) {
        eager_host_s = table_host_s(trtllm_stack().eager_call_us, source);
        if (!eager_host_s) {
          p.not_simulated_reason = "an eager call of kernel_source '" + source + "': configs/stacks/trtllm-1.x.toml [eager_calls] gives no host time for it";
        }
      }
      // The benchmark reports the mean over its routing's draws (one when balanced).
      if (p.not_simulated_reason.empty()) {
        p.simulate = [&hw, m, eager_host_s] {
          double sum = 0;
          for (int d = 0; d < moe_routing_draws(m); ++d) {
            const std::vector<OpSpec> ops = moe_layer_ops(m, d);
            sum += eager_host_s ? eager_call_seconds(hw, ops, *eager_host_s) : call_seconds(hw, ops);
          }
          return sum / moe_routing_draws(m);
        };
      }
    } else {
      p.not_simulated_reason = dtype.rfind("w4a16", 0) == 0 || dtype.rfind("int4", 0) == 0 || dtype.rfind("int8_wo", 0) == 0
                                   ? "weight-only " + dtype + " experts (dequantization in the GEMM) are not modelled"
                                   : dtype + " experts are not modelled (bfloat16, fp8, fp8_block and w4a16_mxfp4 are)";
    }
    out.push_back(std::move(p));
  }
  // The collector loads the first file matching name* (collect_moe.py) and skips tuning when
  // there is one; the autotuner keys its entries on the runner's (top-k, TP, EP)
  // (MoERunner::unique_id). A row is "foreign" when a case with another key has a name the
  // glob matches for it (equal, or extending it as ..._16 extends ..._1): that case's file,
  // if it came first, has no entry for the row's runner.
  std::map<std::string, std::set<std::array<std::int64_t, 3>>> runners_by_name;
  for (std::size_t i = 0; i < out.size(); ++i) runners_by_name[cache_names[i]].insert(runner_keys[i]);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::string& name = cache_names[i];
    const std::set<std::array<std::int64_t, 3>> own_runner = {runner_keys[i]};
    bool foreign = false;
    for (auto it = runners_by_name.lower_bound(name); !foreign && it != runners_by_name.end() && it->first.rfind(name, 0) == 0; ++it) {
      foreign = it->second != own_runner;
    }
    out[i].result.tuning_cache = foreign ? "foreign" : "own";
  }
  return out;
}

}  // namespace roofsim
