// The collective kernel tables' rows (nccl.csv, custom_allreduce_*.csv) as roofsim simulates them
// (collective_rows, experiment/kernel_table_rows.hpp).
#include <map>
#include <string>
#include <vector>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "experiment/collective.hpp"
#include "experiment/kernel_table_rows.hpp"
#include "experiment/results.hpp"

namespace roofsim {

namespace {

bool parse_nccl_op(const std::string& text, CollectiveKind& kind) {
  static const std::map<std::string, CollectiveKind> names = {{"all_reduce", CollectiveKind::allreduce},
                                                              {"all_gather", CollectiveKind::allgather},
                                                              {"reduce_scatter", CollectiveKind::reducescatter},
                                                              {"alltoall", CollectiveKind::alltoall}};
  auto it = names.find(text);
  if (it == names.end()) return false;
  kind = it->second;
  return true;
}

// One collective on `gpus` GPUs of one switched node, as nccl-tests sizes it; `algo` empty:
// the topology's default (NCCL's own choice).
double simulate_collective_row(const HardwareSpec& hw, CollectiveKind kind, int gpus, std::uint64_t bytes, DType dtype,
                               const std::string& algo) {
  CollectiveExperiment x;
  x.hw = hw;
  x.topology = "switch:" + std::to_string(gpus);
  x.kind = kind;
  x.bytes = bytes;
  x.dtype = dtype;
  if (!algo.empty()) x.algo = CollectiveAlgo{algo};
  return run_collective_experiment(x).sim.sim_time_s;
}

// The framework's own all-reduce kernels, by the implementation/backend column. Eager vLLM
// adds host launches roofsim does not model for collectives: those rows are not simulated.
std::string custom_algorithm(const std::string& impl) {
  if (impl == "trtllm") return "trtllm_custom";
  if (impl == "vllm_graph") return "vllm_custom";
  return "";
}

// The kernel a custom all-reduce row ran: its `implementation` (TensorRT-LLM's table) or
// `backend` (vLLM's) column, else what its kernel_source names ("" when it names none).
std::string custom_implementation(const CsvRow& row) {
  for (const char* column : {"implementation", "backend"}) {
    if (row.count(column) && !row.at(column).empty()) return row.at(column);
  }
  static const std::map<std::string, std::string> by_source = {
      {"TRTLLM", "trtllm"}, {"vLLM_custom_graph", "vllm_graph"}, {"vLLM_custom_eager", "vllm_eager"}};
  auto found = row.count("kernel_source") ? by_source.find(row.at("kernel_source")) : by_source.end();
  return found == by_source.end() ? "" : found->second;
}

}  // namespace

// nccl.csv and custom_allreduce_*.csv: message_size counts elements of the row's dtype.
std::vector<PendingRow> collective_rows(const std::string& path, const HardwareSpec& hw, bool custom) {
  std::vector<PendingRow> out;
  for (const CsvRow& row : read_csv(path)) {
    const std::string& op = csv_text(path, row, "op_name");
    PendingRow p;
    CollectiveKind kind = CollectiveKind::allreduce;
    if (!parse_nccl_op(op, kind)) p.not_simulated_reason = "op_name '" + op + "' (all_reduce, all_gather, reduce_scatter and alltoall are modelled)";
    const std::string& dtype = csv_text(path, row, custom ? "allreduce_dtype" : "nccl_dtype");
    // The tables name element types as PyTorch and NCCL do.
    static const std::map<std::string, DType> element_types = {{"half", DType::fp16},    {"float16", DType::fp16},
                                                               {"bfloat16", DType::bf16}, {"int8", DType::int8},
                                                               {"float", DType::fp32},   {"float32", DType::fp32}};
    auto type = element_types.find(dtype);
    if (type == element_types.end() && p.not_simulated_reason.empty()) {
      p.not_simulated_reason = "element type '" + dtype + "' (half, float16, bfloat16, int8, float and float32 are modelled)";
    }
    const DType element = type == element_types.end() ? DType::bf16 : type->second;
    const std::int64_t gpus = csv_positive_integer(path, row, "num_gpus");
    if (gpus < 2 || gpus > 1024) {
      throw InputError(path + ":" + row.at("#line") + ": num_gpus: expected 2 to 1024, got " + std::to_string(gpus));
    }
    const std::int64_t elements = csv_positive_integer(path, row, "message_size");
    if (elements > (std::int64_t{1} << 40)) {
      throw InputError(path + ":" + row.at("#line") + ": message_size: " + std::to_string(elements) + " elements is beyond 2^40");
    }
    const std::uint64_t bytes = tensor_bytes(elements, element);
    std::string algo, impl;
    if (custom) {
      impl = custom_implementation(row);
      p.result.family = "custom " + op + " " + (impl.empty() ? "unnamed" : impl);
      algo = custom_algorithm(impl);
    } else {
      p.result.family = "nccl " + op;
    }
    if (type == element_types.end()) p.result.family += " " + dtype;  // apart from the simulated rows
    p.result.label = std::to_string(gpus) + " GPUs, " + format_bytes(static_cast<double>(bytes));
    p.result.source = kernel_row_source(path, row);
    p.result.measured_s = kernel_row_measured_seconds(path, row);
    p.result.bucket = kernel_size_bucket(static_cast<double>(bytes));
    if (custom && algo.empty() && p.not_simulated_reason.empty()) {
      if (impl.empty()) {
        p.not_simulated_reason = "the row does not say which kernel ran (no implementation or backend column, and kernel_source '" +
                                 (row.count("kernel_source") ? row.at("kernel_source") : std::string()) +
                                 "' names none of TRTLLM, vLLM_custom_graph, vLLM_custom_eager)";
      } else if (impl == "vllm_eager") {
        p.not_simulated_reason = "the calls include eager host launches, which roofsim does not model for collectives";
      } else {
        p.not_simulated_reason = "implementation '" + impl + "' is not modelled (trtllm and vllm_graph are; vllm_eager's calls include eager host launches)";
      }
    } else if (p.not_simulated_reason.empty()) {
      p.simulate = [&hw, kind, gpus, bytes, element, algo] {
        return simulate_collective_row(hw, kind, static_cast<int>(gpus), bytes, element, algo);
      };
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace roofsim
