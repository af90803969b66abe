#include "core/parse.hpp"
#include "experiment/public_cases.hpp"

#include "experiment/stack.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/presets.hpp"

namespace roofsim {

namespace {

DType dtype_cell(const std::string& path, const std::map<std::string, std::string>& row, const std::string& key) {
  DType d;
  if (!parse_dtype(row.at(key), d)) {
    throw InputError(path + ":" + row.at("#line") + ": " + key + ": unknown dtype '" + row.at(key) + "'");
  }
  return d;
}

}  // namespace

double first_number(const std::string& text) {
  std::size_t i = text.find_first_of("0123456789");
  if (i == std::string::npos) throw InputError("no number in '" + text + "'");
  try {
    return std::stod(text.substr(i));
  } catch (const std::out_of_range&) {
    throw InputError("the number in '" + text + "' is out of range");
  }
}

namespace {
// first_number() of a cell, a measurement: positive (a relative error against 0 is infinite,
// and a sign before the digits is not skipped over); errors name the file, line and column.
double reference_cell(const std::string& path, const std::map<std::string, std::string>& row, const std::string& column) {
  const std::string& text = row.at(column);
  double value = 0;
  try {
    value = first_number(text);
  } catch (const InputError& e) {
    throw ConfigError(path, std::stol(row.at("#line")), column, e.what());
  }
  const std::size_t digit = text.find_first_of("0123456789");
  const std::size_t sign = text.find_last_not_of(" \t.", digit == 0 ? 0 : digit - 1);
  if (digit > 0 && sign != std::string::npos && sign < digit && text[sign] == '-') {
    throw ConfigError(path, std::stol(row.at("#line")), column, "'" + text + "' is negative; a measurement is a positive number");
  }
  if (!(value > 0)) {
    throw ConfigError(path, std::stol(row.at("#line")), column, "'" + text + "' is not a positive number (the error relative to it would be infinite)");
  }
  return value;
}

// The experiment and metric of one row of a runs table.
PublicCase case_from_row(const std::string& path, std::map<std::string, std::string>& row) {
  PublicCase c;
  c.id = row.at("id");
  Experiment& e = c.experiment;
  e.hw = row.at("hw");
  e.model = row.at("model");
  for (auto [column, target] : {std::pair{"batch", &e.batch}, std::pair{"prompt", &e.prompt}, std::pair{"generate", &e.generate}}) {
    const auto v = parse_integer(row.at(column));
    if (!v || *v <= 0) {
      throw InputError(path + ":" + row.at("#line") + ": " + column + ": expected a positive integer, got '" + row.at(column) + "'");
    }
    *target = *v;
  }
  // The experiment's own limits (kMaxBatch, kMaxTokens), here at the row rather than later as flags.
  for (auto [column, value, limit] : {std::tuple{"batch", e.batch, kMaxBatch}, std::tuple{"prompt", e.prompt, kMaxTokens},
                                      std::tuple{"generate", e.generate, kMaxTokens}}) {
    if (value > limit) {
      throw InputError(path + ":" + row.at("#line") + ": " + column + ": " + std::to_string(value) + " is more than " +
                       std::to_string(limit));
    }
  }
  // Hardware and model names that find nothing are refused at their row, not later as flags.
  for (auto [column, kind] : {std::pair{"hw", "hardware"}, std::pair{"model", "models"}}) {
    try {
      resolve_preset(kind, row.at(column));
    } catch (const InputError& err) {
      throw InputError(path + ":" + row.at("#line") + ": " + err.what());  // "hw 'x': unknown ..."
    }
  }
  // A measured run shows the engine ran these lengths, whatever the model's nominal maximum
  // context (TensorRT-LLM ran GPT-J 6B, trained on 2048 tokens, at 2048 in + 128 out).
  e.allow_long_context = true;
  e.max_events = 0;  // the cases are the validation: they run whatever they cost (batch 896: 12 s)
  e.precision.weights = dtype_cell(path, row, "weights");
  e.precision.activations = dtype_cell(path, row, "activations");
  e.precision.kv = dtype_cell(path, row, "kv");
  const std::optional<Launch> launch = parse_launch(row.at("launch"));
  if (!launch) {
    throw InputError(path + ":" + row.at("#line") + ": launch '" + row.at("launch") + "' (expected " + or_list(launch_names()) + ")");
  }
  e.launch = *launch;
  // Optional: which attention kernel the measured software ran (fused when absent).
  if (row.count("attention")) e.attention = parse_attention(row.at("attention"), path + ":" + row.at("#line") + ": attention");
  // Optional: the software stack the case ran (configs/stacks): its kernel parameters on the
  // hardware; the launch and attention columns, when given, win over the stack's.
  if (row.count("stack") && !row.at("stack").empty()) {
    try {
      apply_stack(load_stack(row.at("stack")), e, row.count("attention") > 0, true);
    } catch (const InputError& err) {
      throw InputError(path + ":" + row.at("#line") + ": stack: " + err.what());
    }
  }
  e.source = "case " + c.id;
  c.metric = row.at("metric");
  if (c.metric != "throughput" && c.metric != "ttft" && c.metric != "decode_tok_s") {
    throw InputError(path + ":" + row.at("#line") + ": metric '" + c.metric + "' (expected throughput, ttft or decode_tok_s)");
  }
  return c;
}
}  // namespace

std::vector<PublicCase> load_user_cases(const std::string& path) {
  std::vector<PublicCase> cases;
  for (auto& row : read_csv(path)) {
    for (const char* col : {"id", "hw", "model", "batch", "prompt", "generate", "weights", "activations", "kv", "launch",
                            "metric", "reference", "unit"}) {
      if (!row.count(col)) throw InputError(path + ":1: missing column '" + std::string(col) + "'");
    }
    PublicCase c = case_from_row(path, row);
    c.reference = reference_cell(path, row, "reference");
    c.unit = row.at("unit");
    c.source = row.count("source") ? row.at("source") : path;
    c.category = "user";
    cases.push_back(c);
  }
  if (cases.empty()) throw InputError(path + ":1: no cases (a header and no rows)");
  return cases;
}

std::vector<PublicCase> load_public_cases(const std::string& dir_in) {
  const std::string dir = dir_in.empty() ? config_dir() + "/../validation" : dir_in;
  const std::string runs_path = dir + "/public_case_runs.csv", refs_path = dir + "/public-cases.csv";
  std::map<std::string, std::map<std::string, std::string>> refs;
  for (auto& row : read_csv(refs_path)) refs[row.at("id")] = row;
  std::vector<PublicCase> cases;
  for (auto& row : read_csv(runs_path)) {
    PublicCase c = case_from_row(runs_path, row);
    auto ref = refs.find(c.id);
    if (ref == refs.end()) throw InputError(runs_path + ":" + row.at("#line") + ": id " + c.id + " is not in " + refs_path);
    c.reference = reference_cell(refs_path, ref->second, "value");
    c.category = ref->second.at("category");
    c.unit = ref->second.at("unit");
    c.source = ref->second.at("source");
    cases.push_back(c);
  }
  // Rows of the same publications that no calibration used: they test what the fits predict.
  const std::string held_out_path = dir + "/held-out-cases.csv";
  if (std::ifstream(held_out_path)) {
    for (PublicCase& c : load_user_cases(held_out_path)) {
      c.category = "held_out";
      cases.push_back(c);
    }
  }
  return cases;
}

const PublicCase& find_public_case(const std::vector<PublicCase>& cases, const std::string& id) {
  for (const auto& c : cases) {
    if (c.id == id) return c;
  }
  throw InputError("no public case '" + id + "' (see 'roofsim cases list')");
}

double case_metric(const PublicCase& c, const ExperimentResult& r) {
  if (c.metric == "throughput") return r.throughput_tok_s();
  if (c.metric == "ttft") return r.ttft_s * 1e3;
  return 1.0 / r.tpot_s;
}

}  // namespace roofsim
