#pragma once
// The rows of measured kernel tables, read and made ready to simulate: one reader per family
// (GEMMs per stack's linear path, attention, NCCL and custom all-reduce, MoE), each turning a
// CSV row into the ops the measured call ran and how its time is taken. experiment/
// kernel_tables.cpp simulates them and summarises the errors.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/csv.hpp"
#include "core/hardware.hpp"
#include "experiment/kernel_tables.hpp"

namespace roofsim {

// A row ready to simulate: where it came from, what it measured, and how to simulate it.
struct PendingRow {
  KernelRowResult result;
  std::function<double()> simulate;  // empty: roofsim cannot simulate the row yet
  std::string not_simulated_reason;
};

// The kernels a stack's linear launches for a GEMM row: TensorRT-LLM's (gemm.csv, and its
// weight-only and SmoothQuant GEMMs in gemm_weight_only.csv) or vLLM's (gemm_vllm.csv; families
// "gemm vllm ...").
enum class LinearPath { trtllm, vllm };

std::vector<PendingRow> gemm_rows(const std::string& path, const HardwareSpec& hw, LinearPath linear);
// Context (prefill) or generation (decode) attention.
std::vector<PendingRow> attention_rows(const std::string& path, const HardwareSpec& hw, bool prefill);
// nccl-tests rows, or (custom) a framework's own all-reduce kernel.
std::vector<PendingRow> collective_rows(const std::string& path, const HardwareSpec& hw, bool custom);
std::vector<PendingRow> moe_rows(const std::string& path, const HardwareSpec& hw);
// A size bucket's place in the order the tables list them (latency, then message size).
std::size_t bucket_rank(const std::string& name);

// What every table's row reader shares: the row's source ("gemm.csv:12"), its measured latency
// in seconds (the tables hold milliseconds; refused beyond 1e6 ms), and the size buckets the
// report groups it in (compute kernels by latency, collectives by message bytes).
std::string kernel_row_source(const std::string& path, const CsvRow& row);
double kernel_row_measured_seconds(const std::string& path, const CsvRow& row);
std::string kernel_latency_bucket(double seconds);
std::string kernel_size_bucket(double bytes);

// How the row readers time a measured call (experiment/kernel_table_rows.cpp).
struct OpSpec;
struct SoftwareStack;
// The call's ops one after another, from the first's start to the last's end.
double call_seconds(const HardwareSpec& hw, const std::vector<OpSpec>& ops);
// The call replayed eagerly, back to back: the host spends `host_s` launching each call.
double eager_call_seconds(const HardwareSpec& hw, const std::vector<OpSpec>& call, double host_s);
// A host time in seconds from a stack's host-time table (microseconds); none without the key.
std::optional<double> table_host_s(const std::map<std::string, double>& table_us, const std::string& key);
// The trtllm-1.x stack, loaded once.
const SoftwareStack& trtllm_stack();

}  // namespace roofsim
