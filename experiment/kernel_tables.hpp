#pragma once
// Measured kernel tables (the format of ../shared/validation/kernels/, README there): every row
// is one real kernel call with its latency. Each row is simulated in this process as the op or
// collective it measured, and the errors are summarised per family and size bucket
// (`roofsim validate --kernels DIR`, the Python module's validate_kernels()).
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/hardware.hpp"
#include "experiment/progress.hpp"

namespace roofsim {

struct KernelRowResult {
  std::string family;  // "gemm bf16", "nccl all_reduce 8 GPUs", ...
  std::string bucket;  // size bucket within the family
  std::string label;   // the row's shape, for people
  std::string source;  // FILE:LINE
  double measured_s = 0, simulated_s = 0;
  // Where the call's reads come from as its benchmark ran it: "l2" when the benchmark keeps its
  // working set in the L2 (gemm_operands_resident), else "hbm".
  std::string reads = "hbm";
  // MoE rows: whether the benchmark's autotuner could find tuned tactics for the row's case.
  // aiconfigurator's collector loads the first cache file matching the glob
  // {dtype}_{hidden}_{inter / TP}_{experts / EP}* and skips tuning when one exists; the
  // autotuner keys its entries on the runner's top-k, TP and EP. "foreign" when another case of
  // the table with a different top-k, TP or EP has a name the glob matches (equal or extending),
  // so the file loaded may hold no entry for the row and the runner takes its first tactic;
  // "own" otherwise (docs/calibration.md). "" for other rows.
  std::string tuning_cache;
  double error() const { return simulated_s / measured_s - 1; }  // signed: + = roofsim slower
};

struct KernelErrorStats {
  std::string name;
  std::size_t rows = 0;
  double mape = 0;           // mean absolute error
  double median_signed = 0;  // median of error()
  // Rows whose measured time is at least twice the simulated one (error() <= -50%): outliers
  // no kernel mechanism in roofsim should produce, counted so a population of them shows (the
  // MoE tables' rows that ran without tuned tactics; docs/calibration.md).
  std::size_t measured_twice_simulated = 0;
};

struct KernelFamilyResult {
  std::string family;
  std::string file;  // the table it came from
  std::vector<KernelRowResult> rows;
  KernelErrorStats overall;
  std::vector<KernelErrorStats> buckets;
  // MoE families: the rows by tuning_cache ("own", "foreign"; empty for other families).
  std::vector<KernelErrorStats> by_tuning_cache;
  // Rows roofsim cannot simulate yet, and why (the family then has no error figures).
  std::size_t not_simulated = 0;
  std::string not_simulated_reason;
};

// A CSV of the folder that is not a kernel table roofsim reads, and why (named, never dropped
// silently).
struct SkippedTable {
  std::string file, reason;
};

struct KernelValidationResult {
  std::string hw, dir;
  std::vector<KernelFamilyResult> families;
  std::vector<SkippedTable> skipped;  // by file name
  // Each table read whose stack's kernel parameters were set on the chip: file -> stack, only
  // where the stack sets any (configs/stacks [hardware]).
  std::map<std::string, std::string> table_stacks;
  std::size_t simulated_rows() const;
};

// The table files a kernel folder may hold, for --help and errors.
std::vector<std::string> kernel_table_files();

// The chip a folder's rows run on: as given for tables no serving stack measured (nccl-tests),
// and for a stack's tables with that stack's kernel parameters set on it (configs/stacks
// [hardware]: TensorRT-LLM's attention kernels' cycles per CTA...), as `serve --stack` runs it.
// A kernel's cost stated in cycles thus runs at whatever chip's clock.
struct KernelTableChips {
  HardwareSpec plain;
  std::map<std::string, HardwareSpec> by_stack;  // stack name -> the chip with its parameters (stacks that set any)
  const HardwareSpec& for_stack(const std::string& stack) const;
};
// `hw`: a preset name or a path to a hardware file.
KernelTableChips kernel_table_chips(const std::string& hw);

// Simulates every row of every known table in `dir`; every other CSV there is listed in
// `skipped` with the reason. Throws InputError naming the file, line and column for a malformed
// row, or when the folder holds no known table.
KernelValidationResult validate_kernel_tables(const std::string& dir, const KernelTableChips& chips,
                                              const RunControl& control = {});
// Every table on `hw` as it is, no stack's parameters set (the fuzzer's form).
KernelValidationResult validate_kernel_tables(const std::string& dir, const HardwareSpec& hw,
                                              const RunControl& control = {});

// Limits per family (a CSV: family,max_mape_percent): the families whose MAPE exceeds theirs,
// as "family: MAPE x% > limit y%". A family named in the limits but absent from the result is
// a violation too, so a table that stops being simulated cannot pass silently. A family named
// "FAMILY (own tuning cache)" or "(foreign tuning cache)" limits those MoE rows alone.
std::vector<std::string> kernel_limit_violations(const KernelValidationResult& r, const std::string& limits_csv);

// The summary: per family its figures, buckets and `worst` rows of largest absolute error.
nlohmann::json to_json(const KernelValidationResult& r, std::size_t worst = 10);
// Every simulated row as a flat record (family, bucket, shape, source, measured_s,
// simulated_s, error), for records_csv.
nlohmann::json kernel_row_records(const KernelValidationResult& r);
// The rows of a family sorted by absolute error, largest first, at most `n`.
std::vector<const KernelRowResult*> worst_rows(const KernelFamilyResult& f, std::size_t n);

}  // namespace roofsim
