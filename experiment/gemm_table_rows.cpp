// The GEMM kernel tables' rows (gemm.csv, gemm_vllm.csv, gemm_weight_only.csv and the project's
// own tables) as roofsim simulates them, on the kernels each stack's linear launches
// (gemm_rows, experiment/kernel_table_rows.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/parse.hpp"
#include "experiment/kernel_table_rows.hpp"
#include "experiment/results.hpp"
#include "experiment/single_op.hpp"
#include "experiment/stack.hpp"
#include "workloads/gemv_kernel.hpp"

namespace roofsim {

namespace {

// A plugin layer of a TensorRT engine timed by TensorRT's per-layer profiler (the public GEMM
// collector for TensorRT engines, collect_gemm_trt.py, reads the layer's time from a
// trt.IProfiler): the layer's time runs from its start, through the host's enqueue of the
// plugin (`host_s`), to the end of its kernels. The chip is idle until the launch; nothing
// adds the two but the events.
double profiled_layer_seconds(const HardwareSpec& hw, const std::vector<OpSpec>& ops, double host_s) {
  const OpsRunResult r = run_ops(hw, false, ops, Granularity::coarse, kDefaultMaxEvents, std::vector<double>(ops.size(), host_s));
  return to_seconds(r.ops.back().result.end_ps);
}

// The [profiled_layers] key of a TensorRT-engine GEMM row: the plugin its layer name gives
// (".../PLUGIN_V2_WeightOnlyQuantMatmul_0" -> WeightOnlyQuantMatmul) and the plugin's path for
// the row's tokens. TensorRT-LLM's weight-only and SmoothQuant plugins run a CUDA-core kernel for
// at most 4 tokens (WeightOnlyQuantMatmulPlugin: m < SMALL_M_FAST_PATH = 5, the batched GEMV;
// SmoothQuantGemmPlugin: m <= 4, int8_sq_launcher) and a CUTLASS GEMM above; their enqueues
// differ (a CUTLASS call looks up its profiled tactic and workspace).
std::string trt_profiled_layer_key(const std::string& kernel_source, std::int64_t m) {
  const std::string marker = "PLUGIN_V2_";
  const std::size_t at = kernel_source.rfind(marker);
  if (at == std::string::npos) return "";
  std::string plugin = kernel_source.substr(at + marker.size());
  const std::size_t suffix = plugin.rfind('_');
  if (suffix != std::string::npos && suffix + 1 < plugin.size() &&
      plugin.find_first_not_of("0123456789", suffix + 1) == std::string::npos) {
    plugin.resize(suffix);
  }
  return plugin + (m <= kGemvMaxTokens ? "_gemv" : "_cutlass");
}


// vLLM's stack, whose tables its GEMM rows read, loaded once (a thread-safe static).
const SoftwareStack& vllm_stack() {
  static const SoftwareStack s = load_stack("vllm");
  return s;
}

// A row its collector timed inside a TensorRT engine, layer by layer (kernel_source
// "trt_flow_<layer name>"), not as a replayed call.
bool is_trt_engine_row(const CsvRow& row) {
  return row.count("kernel_source") && row.at("kernel_source").rfind("trt_flow_", 0) == 0;
}

// Whether the benchmark behind a GEMM row kept the call's operands in the L2: the weight copies
// it rotates, its one input (and the input's quantized copy) and its reused output all fit the
// share of the L2 a replayed working set keeps (onchip.NAME.resident_share). A table says how
// many copies rotated in a `weight_copies` column (bench/gpu/gemm_table.py writes one); without
// it, the public tables' collector (aiconfigurator, collector/trtllm/collect_gemm.py; framework
// TRTLLM) rotates max(1, min(5, ceil(L2 / W))) copies of a W-byte weight, so below L2 / 5 they
// may fit; vLLM's (collector/vllm/collect_gemm.py; framework VLLM) builds six layers, each with
// its own weights, and runs them in turn for bf16 and fp8, one layer for fp8_block; other
// tables' rows are taken to read HBM. So are the rows of its TensorRT-engine collector
// (collector/trtllm/collect_gemm_trt.py; kernel_source "trt_flow_..."): each shape is a new
// engine run twice, and the GEMM follows three linears of width 12288 whose 300 MB of fp16
// weights pass through the L2 just before it.
// `quantized_bytes`: per activation, the copy a quantizing kernel writes before the GEMM (0: none).
bool gemm_operands_resident(const std::string& path, const CsvRow& row, std::int64_t m, std::int64_t n, std::int64_t k,
                            const std::string& dtype, DType weight, double quantized_bytes, const HardwareSpec& hw) {
  const double l2 = hw.tile_buffer_memory().capacity_bytes;
  const double w = static_cast<double>(n) * static_cast<double>(k) * dtype_bytes(weight);
  double copies = 0;
  if (is_trt_engine_row(row)) return false;
  if (row.count("weight_copies") && !row.at("weight_copies").empty()) {
    copies = static_cast<double>(csv_positive_integer(path, row, "weight_copies"));
  } else if (row.count("framework") && row.at("framework") == "TRTLLM") {
    copies = std::max(1.0, std::min(5.0, std::ceil(l2 / w)));
  } else if (row.count("framework") && row.at("framework") == "VLLM") {
    copies = dtype == "bfloat16" || dtype == "fp8" ? 6.0 : 1.0;
  } else {
    return false;
  }
  const double x = static_cast<double>(m) * static_cast<double>(k) * (2.0 + quantized_bytes);
  const double y = static_cast<double>(m) * static_cast<double>(n) * 2.0;
  return copies * w + x + y <= hw.tile_buffer_memory().resident_capacity();
}



}  // namespace

// y[m,n] = x[m,k] W[n,k]^T. The dtype column says which kernel ran.
std::vector<PendingRow> gemm_rows(const std::string& path, const HardwareSpec& hw, LinearPath linear) {
  const std::string family = linear == LinearPath::vllm ? "gemm vllm" : "gemm";
  std::vector<PendingRow> out;
  for (const CsvRow& row : read_csv(path)) {
    const std::int64_t m = csv_positive_integer(path, row, "m"), n = csv_positive_integer(path, row, "n"),
                       k = csv_positive_integer(path, row, "k");
    const std::string& dtype = csv_text(path, row, "gemm_dtype");
    // Sizes first (operands within 2^48 elements): the fp8 ops below multiply them.
    GemmShape shape;
    shape.m = m;
    shape.n = n;
    shape.k = k;
    check_shape(shape, path + ":" + row.at("#line") + ": m, n, k");
    std::vector<OpSpec> ops;
    PendingRow p;
    if (dtype == "bfloat16") {
      GemmShape g;
      g.m = m;
      g.n = n;
      g.k = k;
      ops.push_back(gemm_op(g, ""));
    } else if (dtype == "fp8" && linear == LinearPath::vllm) {
      // vLLM's collector builds its fp8 layer with a static activation scale.
      if (hw.matrix_supports(DType::fp8)) ops = fp8_static_linear_ops(m, n, k);
      else p.not_simulated_reason = hw.name + " does not compute in fp8";
    } else if (dtype == "fp8" || dtype == "fp8_block") {
      // The measured call includes the dynamic quantization of the activations.
      if (hw.matrix_supports(DType::fp8)) ops = fp8_dynamic_linear_ops(m, n, k, dtype == "fp8" ? Fp8Scaling::per_tensor : Fp8Scaling::block);
      else p.not_simulated_reason = hw.name + " does not compute in fp8";
    } else if (dtype == "fp8_gemm") {
      // The scaled fp8 GEMM alone, operands already e4m3 (bench/gpu/gemm_table.py --dtype fp8):
      // the fp8 rows less their activation quantization.
      if (hw.matrix_supports(DType::fp8)) ops.push_back(quantized_gemm_op(m, n, k, DType::fp8, 0));
      else p.not_simulated_reason = hw.name + " does not compute in fp8";
    } else if (dtype == "nvfp4") {
      if (hw.matrix_supports(DType::nvfp4)) ops = nvfp4_linear_ops(m, n, k);
      else p.not_simulated_reason = hw.name + " does not compute in nvfp4";
    } else if (dtype == "int4_wo" || dtype == "int8_wo") {
      // Weight-only: 4- or 8-bit weights dequantized to bf16 in the kernel, bf16 activations
      // (TensorRT-LLM's WeightOnlyQuantMatmul); the matrix units compute in bf16.
      // At most four tokens the plugin runs its batched GEMV on the CUDA cores instead.
      const DType weights = dtype == "int4_wo" ? DType::int4 : DType::int8;
      if (m <= kGemvMaxTokens) {
        ops.push_back(vector_op(weight_only_gemv_shape(m, n, k, weights), ""));
      } else {
        GemmShape g;
        g.m = m;
        g.n = n;
        g.k = k;
        g.b = weights;
        ops.push_back(gemm_op(g, ""));
      }
    } else if (dtype == "sq" && m <= kGemvMaxTokens) {
      // SmoothQuant's plugin runs its int8_sq GEMV on the CUDA cores for at most four tokens.
      ops.push_back(vector_op(smoothquant_gemv_shape(m, n, k), ""));
    } else if (dtype == "sq") {
      // SmoothQuant W8A8: int8 activations (quantized where the layer before writes them) and
      // int8 weights on the int8 matrix rate, bf16 out.
      // TensorRT-LLM's int8 GEMM (CutlassInt8GemmRunner) dispatches its CUTLASS 2.x kernels
      // (cutlass::arch::Sm80, mma.sync) on Hopper too: matrix.mma_sync_rate of the rate.
      if (hw.matrix_supports(DType::int8)) {
        ops.push_back(quantized_gemm_op(m, n, k, DType::int8, 0));
        ops.back().gemm.kernel_mma_sync = true;
        // Its CUTLASS path (from 5 tokens) gives one CTA the whole of K for its tile: at few tiles
        // the measured calls grow with K alone (K = 8k / 12k / 16k: 31 / 45 / 57 us at 8 to 256
        // tokens, 32 to 768 columns), the profiled tactic does not split K.
        ops.back().gemm.kernel_no_split_k = true;
      } else {
        p.not_simulated_reason = hw.name + " does not compute in int8";
      }
    } else {
      p.not_simulated_reason = "gemm_dtype '" + dtype +
                               "' is not modelled (bfloat16, fp8 with its dynamic activation quantization, fp8_block, nvfp4, fp8_gemm, "
                               "int4_wo, int8_wo, sq are)";
    }
    if (!ops.empty()) {
      // The quantizing kernels of fp8 and nvfp4 rows write the activations once more, narrower.
      const DType weight = dtype == "bfloat16" ? DType::bf16
                           : dtype == "nvfp4"  ? DType::nvfp4
                           : dtype == "int4_wo" ? DType::int4
                           : dtype == "int8_wo" || dtype == "sq" ? DType::int8
                                                                 : DType::fp8;
      const bool quantizes = dtype == "fp8" || dtype == "fp8_block" || dtype == "nvfp4";
      const double quantized = quantizes ? dtype_bytes(weight) : 0.0;
      if (gemm_operands_resident(path, row, m, n, k, dtype, weight, quantized, hw)) {
        for (OpSpec& op : ops) op.set_reads_resident();
        p.result.reads = "l2";
      }
    }
    p.result.family = family + " " + std::string(dtype == "bfloat16" ? "bf16" : dtype);
    p.result.label = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    p.result.source = kernel_row_source(path, row);
    p.result.measured_s = kernel_row_measured_seconds(path, row);
    p.result.bucket = kernel_latency_bucket(p.result.measured_s);
    // vLLM's collector times fp8_block without a CUDA graph (collector/vllm/collect_gemm.py):
    // each call pays the host time of its path.
    if (p.not_simulated_reason.empty() && linear == LinearPath::vllm && dtype == "fp8_block") {
      const std::string source = row.count("kernel_source") ? row.at("kernel_source") : "";
      if (const std::optional<double> host_s = table_host_s(vllm_stack().eager_call_us, source)) {
        p.simulate = [&hw, ops, s = *host_s] { return eager_call_seconds(hw, ops, s); };
      } else {
        p.not_simulated_reason = "an eager call of kernel_source '" + source + "': configs/stacks/vllm.toml [eager_calls] gives no host time for it";
      }
    }
    // A TensorRT engine's layer, timed by its profiler, holds the host's enqueue of the plugin.
    if (p.not_simulated_reason.empty() && is_trt_engine_row(row)) {
      // Its CUTLASS runners (from 5 tokens) run the tactic the plugin's profiler kept for the next
      // power of two of the tokens (GemmPluginProfiler::getBestConfig, at most 8192).
      if (m > kGemvMaxTokens) {
        const std::int64_t tuned = std::min<std::int64_t>(power_of_two_at_least(m, 1), 8192);
        for (OpSpec& op : ops) {
          if (op.is_gemm) op.gemm.kernel_tuned_m = tuned;
        }
      }
      const std::string key = trt_profiled_layer_key(row.at("kernel_source"), m);
      if (const std::optional<double> host_s = table_host_s(trtllm_stack().profiled_layer_us, key)) {
        p.simulate = [&hw, ops, s = *host_s] { return profiled_layer_seconds(hw, ops, s); };
        // Above 4 tokens the weight-only plugin's profiler also timed its CUDA-core GEMV as a
        // tactic, which runs where its dispatcher takes the tuned count and it was the faster.
        if ((dtype == "int4_wo" || dtype == "int8_wo") && m > kGemvMaxTokens && ops.size() == 1 && ops.front().is_gemm) {
          const GemmShape& g = ops.front().gemm;
          if (g.kernel_tuned_m <= kGemvDispatchMaxTokens) {
            GemmShape at_tuned = g;
            at_tuned.m = g.kernel_tuned_m;
            const std::vector<OpSpec> gemv{vector_op(weight_only_gemv_shape(m, n, k, g.b), "")};
            const std::vector<OpSpec> gemv_tuned{vector_op(weight_only_gemv_shape(g.kernel_tuned_m, n, k, g.b), "")};
            const std::vector<OpSpec> gemm_tuned{gemm_op(at_tuned, "")};
            p.simulate = [&hw, ops, gemv, gemv_tuned, gemm_tuned, s = *host_s] {
              const bool gemv_faster = call_seconds(hw, gemv_tuned) < call_seconds(hw, gemm_tuned);
              return profiled_layer_seconds(hw, gemv_faster ? gemv : ops, s);
            };
          }
        }
      } else {
        p.not_simulated_reason = "a TensorRT engine layer '" + row.at("kernel_source") + "': configs/stacks/trtllm-1.x.toml [profiled_layers] gives no host time for '" + key + "'";
      }
    }
    if (p.not_simulated_reason.empty() && !p.simulate) p.simulate = [&hw, ops] { return call_seconds(hw, ops); };
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace roofsim
