#include "experiment/kernel_tables.hpp"
#include "experiment/kernel_table_rows.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "core/csv.hpp"
#include "core/parse.hpp"
#include "core/error.hpp"
#include "components/tiling.hpp"
#include "experiment/results.hpp"
#include "core/format.hpp"
#include "experiment/collective.hpp"
#include "experiment/single_op.hpp"
#include "experiment/stack.hpp"
#include "workloads/attention_kernel.hpp"

namespace roofsim {

namespace {

namespace fs = std::filesystem;

struct TableKind {
  std::string file;
  std::function<std::vector<PendingRow>(const std::string&, const HardwareSpec&)> read;
  std::string stack;      // the serving stack whose kernels the table measured ("": none)
  std::string family;     // for tables roofsim cannot simulate yet
  std::string not_yet;    // why not (empty: simulated)
};

const std::vector<TableKind>& table_kinds() {
  const std::string trt = "trtllm-1.x", vllm = "vllm";
  static const std::vector<TableKind> kinds = {
      {"gemm.csv", [](const std::string& p, const HardwareSpec& hw) { return gemm_rows(p, hw, LinearPath::trtllm); }, trt, "", ""},
      {"gemm_vllm.csv", [](const std::string& p, const HardwareSpec& hw) { return gemm_rows(p, hw, LinearPath::vllm); }, vllm, "", ""},
      {"gemm_weight_only.csv", [](const std::string& p, const HardwareSpec& hw) { return gemm_rows(p, hw, LinearPath::trtllm); }, trt, "", ""},
      {"nccl.csv", [](const std::string& p, const HardwareSpec& hw) { return collective_rows(p, hw, false); }, "", "", ""},
      {"custom_allreduce_trtllm.csv", [](const std::string& p, const HardwareSpec& hw) { return collective_rows(p, hw, true); }, trt, "", ""},
      {"custom_allreduce_vllm.csv", [](const std::string& p, const HardwareSpec& hw) { return collective_rows(p, hw, true); }, vllm, "", ""},
      {"context_attention.csv", [](const std::string& p, const HardwareSpec& hw) { return attention_rows(p, hw, true); }, trt, "", ""},
      {"generation_attention.csv", [](const std::string& p, const HardwareSpec& hw) { return attention_rows(p, hw, false); }, trt, "", ""},
      {"moe.csv", moe_rows, trt, "", ""},
  };
  return kinds;
}

// The kinds of KernelRowResult::tuning_cache, in the order they are reported.
constexpr std::array<const char*, 2> kTuningCacheKinds = {"own", "foreign"};

KernelErrorStats error_stats(const std::string& name, const std::vector<const KernelRowResult*>& rows) {
  KernelErrorStats s;
  s.name = name;
  s.rows = rows.size();
  if (rows.empty()) return s;
  std::vector<double> errors;
  double abs_sum = 0;
  for (const KernelRowResult* r : rows) {
    errors.push_back(r->error());
    abs_sum += std::fabs(r->error());
    if (r->measured_s >= 2 * r->simulated_s) ++s.measured_twice_simulated;
  }
  s.mape = abs_sum / static_cast<double>(rows.size());
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  s.median_signed = n % 2 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
  return s;
}

void summarise(KernelFamilyResult& f) {
  std::vector<const KernelRowResult*> all;
  std::map<std::string, std::vector<const KernelRowResult*>> by_bucket;
  std::vector<std::string> bucket_order;
  for (const KernelRowResult& r : f.rows) {
    all.push_back(&r);
    if (!by_bucket.count(r.bucket)) bucket_order.push_back(r.bucket);
    by_bucket[r.bucket].push_back(&r);
  }
  f.overall = error_stats(f.family, all);
  for (const std::string& b : bucket_order) f.buckets.push_back(error_stats(b, by_bucket[b]));
  std::map<std::string, std::vector<const KernelRowResult*>> by_cache;
  for (const KernelRowResult& r : f.rows) {
    if (!r.tuning_cache.empty()) by_cache[r.tuning_cache].push_back(&r);
  }
  for (const char* kind : kTuningCacheKinds) {
    if (by_cache.count(kind)) f.by_tuning_cache.push_back(error_stats(kind, by_cache[kind]));
  }
}

}  // namespace

std::size_t KernelValidationResult::simulated_rows() const {
  std::size_t n = 0;
  for (const auto& f : families) n += f.rows.size();
  return n;
}

std::vector<std::string> kernel_table_files() {
  std::vector<std::string> out;
  for (const TableKind& k : table_kinds()) out.push_back(k.file);
  return out;
}

const HardwareSpec& KernelTableChips::for_stack(const std::string& stack) const {
  auto found = by_stack.find(stack);
  return found == by_stack.end() ? plain : found->second;
}

KernelTableChips kernel_table_chips(const std::string& hw) {
  KernelTableChips chips;
  chips.plain = load_hardware(hw);
  for (const TableKind& kind : table_kinds()) {
    if (!kind.stack.empty() && !chips.by_stack.count(kind.stack)) {
      const SoftwareStack stack = load_stack(kind.stack);
      if (stack.hardware.empty()) continue;  // no kernel parameters: the chip as it is
      HardwareSpec spec = stack_hardware(stack, hw);
      spec.name = chips.plain.name;  // rows and reasons name the chip
      chips.by_stack.emplace(kind.stack, std::move(spec));
    }
  }
  return chips;
}

KernelValidationResult validate_kernel_tables(const std::string& dir, const HardwareSpec& hw, const RunControl& control) {
  KernelTableChips chips;
  chips.plain = hw;
  return validate_kernel_tables(dir, chips, control);
}

KernelValidationResult validate_kernel_tables(const std::string& dir, const KernelTableChips& chips, const RunControl& control) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError("${kernels} " + dir + ": not a folder" + (ec ? " (" + ec.message() + ")" : ""));
  KernelValidationResult out;
  out.hw = chips.plain.name;
  out.dir = dir;
  std::vector<PendingRow> pending;
  std::map<std::string, std::string> family_file;
  for (const TableKind& kind : table_kinds()) {
    const std::string path = (fs::path(dir) / kind.file).string();
    if (!fs::exists(path, ec)) continue;
    if (!fs::is_regular_file(path, ec)) {  // a folder or device under a table's name: named, not read
      out.skipped.push_back({kind.file, "not a regular file"});
      continue;
    }
    if (!kind.read) {
      KernelFamilyResult f;
      f.family = kind.family;
      f.file = kind.file;
      f.not_simulated = read_csv(path).size();
      f.not_simulated_reason = kind.not_yet;
      out.families.push_back(f);
      continue;
    }
    if (chips.by_stack.count(kind.stack)) {
      out.table_stacks[kind.file] = kind.stack;
    }
    for (PendingRow& p : kind.read(path, chips.for_stack(kind.stack))) {
      family_file.emplace(p.result.family, kind.file);
      pending.push_back(std::move(p));
    }
  }
  std::string known;
  for (const std::string& f : kernel_table_files()) known += (known.empty() ? "" : ", ") + f;
  // Every other CSV is named, in name order, so nothing in the folder is passed over silently.
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const bool table = std::any_of(table_kinds().begin(), table_kinds().end(), [&](const TableKind& k) { return k.file == name; });
    if (e.path().extension() != ".csv" || table) continue;
    std::error_code kind;
    out.skipped.push_back({name, e.is_regular_file(kind) ? "not a kernel table roofsim reads (it reads " + known + ")" : "not a regular file"});
  }
  std::sort(out.skipped.begin(), out.skipped.end(), [](const SkippedTable& a, const SkippedTable& b) { return a.file < b.file; });
  if (pending.empty() && out.families.empty()) {
    std::string skipped;
    for (const SkippedTable& s : out.skipped) skipped += (skipped.empty() ? "" : ", ") + s.file + " (" + s.reason + ")";
    throw InputError("${kernels} " + dir + ": no kernel tables in this folder (expected one of " + known + ")" +
                     (skipped.empty() ? std::string() : "; skipped: " + skipped));
  }
  // Simulated families first, in the order their rows appear.
  std::vector<KernelFamilyResult> simulated;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (control.stop_requested()) throw Cancelled();
    PendingRow& p = pending[i];
    auto it = index.find(p.result.family);
    if (it == index.end()) {
      it = index.emplace(p.result.family, simulated.size()).first;
      simulated.emplace_back();
      simulated.back().family = p.result.family;
      simulated.back().file = family_file.at(p.result.family);
    }
    KernelFamilyResult& f = simulated[it->second];
    if (p.simulate) {
      try {
        p.result.simulated_s = p.simulate();
      } catch (const InputError& err) {  // a row roofsim cannot run: say which
        throw InputError(dir + "/" + p.result.source + ": " + err.raw());
      }
      f.rows.push_back(p.result);
    } else {
      ++f.not_simulated;
      f.not_simulated_reason = p.not_simulated_reason;
    }
    control.report(i + 1, pending.size(), p.result.family + " " + p.result.label);
  }
  for (KernelFamilyResult& f : simulated) {
    summarise(f);
    std::stable_sort(f.buckets.begin(), f.buckets.end(),
                     [](const KernelErrorStats& a, const KernelErrorStats& b) { return bucket_rank(a.name) < bucket_rank(b.name); });
  }
  out.families.insert(out.families.begin(), simulated.begin(), simulated.end());
  return out;
}

std::vector<std::string> kernel_limit_violations(const KernelValidationResult& r, const std::string& limits_csv) {
  std::vector<std::string> out;
  for (const CsvRow& row : read_csv(limits_csv)) {
    const std::string& name = csv_text(limits_csv, row, "family");
    const double limit = csv_positive_number(limits_csv, row, "max_mape_percent");
    // "FAMILY (own tuning cache)" limits the MoE rows whose benchmark could find tuned tactics.
    std::string family = name, cache;
    for (const char* kind : kTuningCacheKinds) {
      const std::string suffix = std::string(" (") + kind + " tuning cache)";
      if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        family = name.substr(0, name.size() - suffix.size());
        cache = kind;
      }
    }
    auto f = std::find_if(r.families.begin(), r.families.end(), [&](const KernelFamilyResult& x) { return x.family == family; });
    const KernelErrorStats* stats = f == r.families.end() || f->rows.empty() ? nullptr : &f->overall;
    if (stats && !cache.empty()) {
      auto c = std::find_if(f->by_tuning_cache.begin(), f->by_tuning_cache.end(), [&](const KernelErrorStats& s) { return s.name == cache; });
      stats = c == f->by_tuning_cache.end() ? nullptr : &*c;
    }
    // Each line names the limit's row: a family that was not simulated may be a typo there.
    const std::string where = limits_csv + ":" + row.at("#line") + ": ";
    if (!stats) {
      std::string simulated;
      for (const KernelFamilyResult& x : r.families) {
        if (!x.rows.empty()) simulated += (simulated.empty() ? "" : ", ") + x.family;
      }
      out.push_back(where + name + ": not simulated (its limit is " + format_fixed(limit, 1) + "%; simulated: " +
                    (simulated.empty() ? "none" : simulated) + ")");
    } else if (100 * stats->mape > limit) {
      out.push_back(where + name + ": MAPE " + format_fixed(100 * stats->mape, 1) + "% > limit " + format_fixed(limit, 1) + "%");
    }
  }
  return out;
}

std::vector<const KernelRowResult*> worst_rows(const KernelFamilyResult& f, std::size_t n) {
  std::vector<const KernelRowResult*> rows;
  for (const KernelRowResult& r : f.rows) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const KernelRowResult* a, const KernelRowResult* b) { return std::fabs(a->error()) > std::fabs(b->error()); });
  if (rows.size() > n) rows.resize(n);
  return rows;
}

namespace {
nlohmann::json stats_json(const KernelErrorStats& s) {
  return {{"name", s.name},
          {"rows", s.rows},
          {"mape", s.mape},
          {"median_signed_error", s.median_signed},
          {"rows_measured_twice_simulated", s.measured_twice_simulated}};
}
nlohmann::json row_json(const KernelRowResult& r) {
  return {{"family", r.family}, {"bucket", r.bucket}, {"shape", r.label}, {"source", r.source},
          {"measured_s", r.measured_s}, {"simulated_s", r.simulated_s}, {"error", r.error()}, {"reads", r.reads},
          {"tuning_cache", r.tuning_cache}};
}
}  // namespace

nlohmann::json to_json(const KernelValidationResult& r, std::size_t worst) {
  nlohmann::json families = nlohmann::json::array();
  for (const KernelFamilyResult& f : r.families) {
    nlohmann::json j = {{"family", f.family}, {"file", f.file}, {"rows", f.rows.size()}};
    if (f.not_simulated > 0) {
      j["not_simulated"] = f.not_simulated;
      j["not_simulated_reason"] = f.not_simulated_reason;
    }
    if (!f.rows.empty()) {
      j["mape"] = f.overall.mape;
      j["median_signed_error"] = f.overall.median_signed;
      j["rows_measured_twice_simulated"] = f.overall.measured_twice_simulated;
      j["buckets"] = nlohmann::json::array();
      for (const KernelErrorStats& b : f.buckets) j["buckets"].push_back(stats_json(b));
      if (!f.by_tuning_cache.empty()) {
        j["by_tuning_cache"] = nlohmann::json::array();
        for (const KernelErrorStats& c : f.by_tuning_cache) j["by_tuning_cache"].push_back(stats_json(c));
      }
      j["worst_rows"] = nlohmann::json::array();
      for (const KernelRowResult* w : worst_rows(f, worst)) j["worst_rows"].push_back(row_json(*w));
    }
    families.push_back(j);
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const SkippedTable& s : r.skipped) skipped.push_back({{"file", s.file}, {"reason", s.reason}});
  nlohmann::json stacks = nlohmann::json::object();
  for (const auto& [file, stack] : r.table_stacks) stacks[file] = stack;
  return {{"hardware", r.hw},         {"kernels", r.dir},         {"simulated_rows", r.simulated_rows()},
          {"families", families},     {"skipped_files", skipped}, {"table_stacks", stacks}};
}

nlohmann::json kernel_row_records(const KernelValidationResult& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const KernelFamilyResult& f : r.families) {
    for (const KernelRowResult& row : f.rows) out.push_back(row_json(row));
  }
  return out;
}

}  // namespace roofsim
