// `roofsim cases serving`: the measured serving runs, simulated row by row.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/format.hpp"
#include "experiment/plot.hpp"
#include "serving/serving_cases.hpp"
#include "serving/serving_cases_plot.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "sim/progress_line.hpp"

namespace roofsim {

namespace {

struct Options {
  std::vector<std::string> files{std::string(ROOFSIM_CONFIG_DIR) + "/../validation/serving/h100_llama31_8b_trtllm.csv"};
  std::int64_t every = 1;
  std::vector<std::string> backends;  // only these backends' rows (empty: all)
  int jobs = 1;
  bool strict = false;
  ServingCaseSettings settings;
  // Host times in the flags' units; unset, each row's stack gives them ([serving] of configs/stacks).
  std::optional<double> overhead_ms, sequence_overhead_us, frontend_request_us, frontend_prompt_token_us, frontend_response_us;
  bool all_layers = false, no_late_release = false;
  std::string json, csv, plot;
};

std::string csv_quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Errors of a set of rows: mean absolute (MAPE) and median signed, TTFT, TPOT and requests/s.
struct Errors {
  std::vector<double> ttft, tpot, requests;
  void add(const ServingCaseResult& r) {
    ttft.push_back(r.ttft_error());
    tpot.push_back(r.tpot_error());
    requests.push_back(r.requests_error());
  }
  std::size_t n() const { return ttft.size(); }
  static double mape(const std::vector<double>& v) {
    double sum = 0;
    for (double e : v) sum += std::abs(e);
    return v.empty() ? 0 : sum / static_cast<double>(v.size());
  }
  std::string line() const {
    return "TTFT " + format_percent(mape(ttft)) + " (median " + format_signed_percent(median(ttft)) + "), TPOT " + format_percent(mape(tpot)) +
           " (median " + format_signed_percent(median(tpot)) + "), requests/s " + format_percent(mape(requests));
  }
  nlohmann::json to_json() const {
    return {{"rows", n()},
            {"ttft_mape", mape(ttft)},
            {"ttft_median_error", median(ttft)},
            {"tpot_mape", mape(tpot)},
            {"tpot_median_error", median(tpot)},
            {"requests_per_s_mape", mape(requests)}};
  }
};

void run(Options o) {
  check_output_path(o.json, "--json");
  check_output_path(o.csv, "--csv");
  if (!o.plot.empty()) {
    check_output_path(o.plot, "--plot");
    plot_terminal(o.plot);  // a chart name gnuplot cannot write is refused before the cases run
  }
  ServingCaseSettings& s = o.settings;
  if (o.overhead_ms) s.iteration_overhead_s = *o.overhead_ms * 1e-3;
  if (o.sequence_overhead_us) s.sequence_overhead_s = *o.sequence_overhead_us * 1e-6;
  if (o.frontend_request_us) s.frontend_request_s = *o.frontend_request_us * 1e-6;
  if (o.frontend_prompt_token_us) s.frontend_prompt_token_s = *o.frontend_prompt_token_us * 1e-6;
  if (o.frontend_response_us) s.frontend_response_s = *o.frontend_response_us * 1e-6;
  o.settings.sample_layers = !o.all_layers;
  if (o.no_late_release) s.late_release = false;
  // Every file is read (and a bad one refused) before any row runs.
  std::vector<ServingCase> all;
  for (const std::string& file : o.files) {
    for (ServingCase& c : load_serving_cases(file)) {
      if (o.backends.empty() || std::find(o.backends.begin(), o.backends.end(), c.backend) != o.backends.end()) {
        all.push_back(std::move(c));
      }
    }
  }
  if (all.empty()) throw InputError("--backend: no row of the files has backend " + o.backends.front());
  std::vector<ServingCase> cases;
  std::vector<ServingCase> skipped;
  for (std::size_t i = 0; i < all.size(); i += static_cast<std::size_t>(o.every)) {
    if (all[i].not_simulated.empty()) {
      cases.push_back(all[i]);
    } else {
      skipped.push_back(all[i]);
    }
  }
  const std::size_t listed = cases.size() + skipped.size();
  // A progress line once a second, in place on a terminal (one line each in a log).
  ProgressLine line("cases serving", "cases");
  std::vector<ServingCaseResult> results = run_serving_cases(cases, o.settings, line.control(), o.jobs);
  line.finish();
  std::vector<ServingCaseResult> failed;
  {
    std::vector<ServingCaseResult> ran;
    for (ServingCaseResult& r : results) (r.failed.empty() ? ran : failed).push_back(std::move(r));
    results = std::move(ran);
  }
  std::ostream& os = human_out(o.json);
  // The assumptions, numbered in order of first appearance: a row names its numbers.
  std::vector<std::string> assumption_text;
  std::map<std::string, std::size_t> assumption_index;
  std::map<std::string, int> assumption_rows;
  auto marks = [&](const ServingCase& c) {
    std::string m;
    for (const std::string& a : c.assumptions) {
      if (!assumption_index.count(a)) {
        assumption_index[a] = assumption_text.size() + 1;
        assumption_text.push_back(a);
      }
      ++assumption_rows[a];
      m += (m.empty() ? "a" : ",a") + std::to_string(assumption_index[a]);
    }
    return m;
  };
  std::set<std::string> models, systems, backends, modes;
  for (const ServingCaseResult& r : results) {
    models.insert(r.c.model_path);
    systems.insert(r.c.system);
    backends.insert(r.c.backend);
    modes.insert(r.c.mode);
  }
  std::vector<std::string> header;
  if (backends.size() > 1) header.push_back("backend");
  if (models.size() > 1) header.push_back("model");
  if (systems.size() > 1) header.push_back("system");
  if (modes.size() > 1) header.push_back("mode");
  for (const char* h : {"isl", "osl", "tp", "conc", "TTFT ms", "sim", "error", "TPOT ms", "sim", "error", "req/s", "sim", "error", "assumed"}) {
    header.push_back(h);
  }
  TextTable t(header);
  Errors total, deployment_given;
  std::map<std::string, Errors> by_group, by_stack_group;
  std::map<std::int64_t, Errors> by_conc;
  std::ostringstream csv;
  csv << "file,line,id,backend,backend_version,model,system,mode,isl,osl,tp,concurrency,ttft_ms,sim_ttft_ms,ttft_error,tpot_ms,sim_tpot_ms,"
         "tpot_error,requests_per_s,sim_requests_per_s,requests_per_s_error,waiting,sim_waiting,status,note\n";
  nlohmann::json rows = nlohmann::json::array();
  for (const ServingCaseResult& r : results) {
    const ServingCase& c = r.c;
    std::vector<std::string> cells;
    if (backends.size() > 1) cells.push_back(c.backend);
    if (models.size() > 1) cells.push_back(c.model_path.substr(c.model_path.find('/') + 1));
    if (systems.size() > 1) cells.push_back(c.system);
    if (modes.size() > 1) cells.push_back(c.mode);
    for (const std::string& v : {std::to_string(c.isl), std::to_string(c.osl), std::to_string(c.tp), std::to_string(c.concurrency),
                                 format_fixed(c.ttft_s * 1e3, 1), format_fixed(r.ttft_s * 1e3, 1), format_signed_percent(r.ttft_error()),
                                 format_fixed(c.tpot_s * 1e3, 2), format_fixed(r.tpot_s * 1e3, 2), format_signed_percent(r.tpot_error()),
                                 format_fixed(r.c.requests_per_s(), 2), format_fixed(r.requests_per_s(), 2), format_signed_percent(r.requests_error()), marks(c)}) {
      cells.push_back(v);
    }
    t.add_row(cells);
    total.add(r);
    if (!c.deployment_assumed) deployment_given.add(r);
    by_group[c.group()].add(r);
    by_stack_group[c.backend + " | " + c.system + " | " + c.mode].add(r);
    by_conc[c.concurrency].add(r);
    csv << csv_quoted(c.file) << ',' << c.line << ',' << csv_quoted(c.id) << ',' << c.backend << ',' << c.backend_version << ','
        << c.model_path << ',' << c.system << ',' << c.mode << ',' << c.isl << ',' << c.osl << ',' << c.tp << ',' << c.concurrency << ','
        << c.ttft_s * 1e3 << ',' << r.ttft_s * 1e3 << ',' << r.ttft_error() << ',' << c.tpot_s * 1e3 << ',' << r.tpot_s * 1e3 << ','
        << r.tpot_error() << ',' << r.c.requests_per_s() << ',' << r.requests_per_s() << ',' << r.requests_error() << ','
        << r.c.waiting() << ',' << r.waiting() << ",simulated," << csv_quoted(c.note()) << '\n';
    rows.push_back({{"id", c.id}, {"file", c.file}, {"line", c.line}, {"group", c.group()}, {"backend", c.backend},
                    {"backend_version", c.backend_version}, {"mode", c.mode}, {"isl", c.isl}, {"osl", c.osl}, {"tp", c.tp},
                    {"concurrency", c.concurrency}, {"ttft_s", c.ttft_s}, {"sim_ttft_s", r.ttft_s}, {"ttft_error", r.ttft_error()},
                    {"tpot_s", c.tpot_s}, {"sim_tpot_s", r.tpot_s}, {"tpot_error", r.tpot_error()},
                    {"requests_per_s", r.c.requests_per_s()}, {"sim_requests_per_s", r.requests_per_s()},
                    {"requests_per_s_error", r.requests_error()}, {"waiting", r.c.waiting()}, {"sim_waiting", r.waiting()},
                    {"model", c.model_path}, {"system", c.system}, {"assumptions", c.assumptions},
                    {"deployment_assumed", c.deployment_assumed}, {"note", c.note()},
                    {"wall_s", r.wall_s}});
  }
  std::set<std::string> stacks;
  for (const ServingCase& c : cases) stacks.insert(serving_case_stack(c, o.settings));
  std::string stacks_used;
  for (const std::string& st : stacks) stacks_used += (stacks_used.empty() ? "" : ", ") + (st.empty() ? std::string("no stack") : st);
  std::string files;
  for (const std::string& f : o.files) files += (files.empty() ? "" : ", ") + f;
  os << "roofsim cases serving: " << results.size() << " of " << listed << " measured runs simulated (" << files << ") on stack "
     << stacks_used << ", " << o.settings.requests_per_client << " requests per client"
     << (o.settings.max_requests > 0 ? " (at most " + std::to_string(o.settings.max_requests) + " per row)" : std::string())
     << "; each stack's scheduler and host costs from its [serving] table (configs/stacks), flags override\n\n";
  if (!results.empty()) t.print(os);
  if (!assumption_text.empty()) {
    os << "\nassumed (rows):\n";
    for (std::size_t i = 0; i < assumption_text.size(); ++i) {
      os << "  a" << i + 1 << " (" << assumption_rows[assumption_text[i]] << "): " << assumption_text[i] << "\n";
    }
  }
  os << "\nrequests/s: concurrency / (TTFT + (output - 1) x TPOT), the closed loop's throughput from the means, measured and "
        "simulated alike\n";
  os << "coverage: " << results.size() << " of " << listed << " rows simulated";
  if (!skipped.empty() || !failed.empty()) os << " (" << skipped.size() << " not set up, " << failed.size() << " stopped)";
  os << "\n";
  if (total.n() > 0) {
    os << "mean absolute error (median signed error): " << total.line() << "\n";
    if (deployment_given.n() < total.n()) {
      os << "rows that give their whole deployment (" << deployment_given.n() << "; the others leave a concurrency, batch limit "
         << "or worker count to an assumption): " << (deployment_given.n() > 0 ? deployment_given.line() : std::string("none")) << "\n";
    }
    if (by_conc.size() > 1) {
      os << "by concurrency:";
      for (const auto& [conc, e] : by_conc) os << "\n  c" << conc << " (" << e.n() << "): " << e.line();
      os << "\n";
    }
    if (by_stack_group.size() > 1) {
      os << "by backend | system | mode:\n";
      for (const auto& [group, e] : by_stack_group) os << "  " << group << " (" << e.n() << "): " << e.line() << "\n";
    }
    if (by_group.size() > 1) {
      os << "by backend | model | system | mode:\n";
      for (const auto& [group, e] : by_group) os << "  " << group << " (" << e.n() << "): " << e.line() << "\n";
    }
  }
  nlohmann::json not_simulated = nlohmann::json::array();
  auto list_row = [&](const ServingCase& c, const std::string& status, const std::string& reason) {
    const std::string& file = c.file;
    not_simulated.push_back({{"id", c.id}, {"file", file}, {"line", c.line}, {"status", status}, {"reason", reason}});
    csv << csv_quoted(file) << ',' << c.line << ',' << csv_quoted(c.id) << ',' << c.backend << ',' << c.backend_version << ','
        << c.model_path << ',' << c.system << ',' << c.mode << ',' << c.isl << ',' << c.osl << ',' << c.tp << ',' << c.concurrency << ','
        << c.ttft_s * 1e3 << ",,," << c.tpot_s * 1e3 << ",,,,,,,," << status << ',' << csv_quoted(reason) << '\n';
    os << "  " << file << ":" << c.line << ": " << c.id << ": " << reason << "\n";
  };
  if (!skipped.empty() || !failed.empty()) os << "not simulated (" << skipped.size() + failed.size() << " of " << listed << " rows):\n";
  for (const ServingCase& c : skipped) list_row(c, "not_set_up", c.not_simulated);
  for (const ServingCaseResult& r : failed) list_row(r.c, "stopped", r.failed);
  if (!o.csv.empty()) write_text(o.csv, csv.str());
  if (!o.plot.empty() && !results.empty()) {
    write_serving_cases_plot(o.plot, "roofsim cases serving: " + std::to_string(results.size()) + " measured runs; TTFT " +
                                         format_fixed(100.0 * Errors::mape(total.ttft), 1) + "%, TPOT " +
                                         format_fixed(100.0 * Errors::mape(total.tpot), 1) + "% mean absolute error",
                             results);
  }
  if (!o.json.empty()) {
    nlohmann::json groups = nlohmann::json::array(), stack_groups = nlohmann::json::array(), assumed = nlohmann::json::array();
    auto group_json = [](const std::string& group, const Errors& e) {
      nlohmann::json g = e.to_json();
      g["group"] = group;
      return g;
    };
    for (const auto& [group, e] : by_group) groups.push_back(group_json(group, e));
    for (const auto& [group, e] : by_stack_group) stack_groups.push_back(group_json(group, e));
    for (const std::string& a : assumption_text) assumed.push_back({{"assumption", a}, {"rows", assumption_rows[a]}});
    nlohmann::json j = total.to_json();
    j.erase("rows");
    j["cases"] = rows;
    j["rows"] = listed;
    j["simulated"] = results.size();
    j["coverage"] = listed ? static_cast<double>(results.size()) / static_cast<double>(listed) : 0.0;
    j["groups"] = groups;
    j["backend_system_mode_groups"] = stack_groups;
    j["assumptions"] = assumed;
    j["deployment_given"] = deployment_given.to_json();
    j["not_simulated"] = not_simulated;
    write_json(o.json, j);
  }
  if (o.strict && (!skipped.empty() || !failed.empty())) {
    std::cerr << "roofsim cases serving: --strict: " << skipped.size() + failed.size() << " rows not simulated\n";
    throw CLI::RuntimeError(1);
  }
}

}  // namespace

void add_serving_cases_command(CLI::App& app) {
  CLI::App* cases = app.get_subcommand("cases");
  auto o = std::make_shared<Options>();
  CLI::App* cmd = cases->add_subcommand(
      "serving",
      "Simulate measured serving runs (aiconfigurator's silicon-sample format: TensorRT-LLM, vLLM and SGLang; aggregated and "
      "disaggregated) with `serve` and show each row's TTFT, TPOT and requests/s errors, with the mean absolute and median "
      "signed error overall, by backend | system | mode and by backend | model | system | mode. Each row runs on its backend's "
      "stack (configs/stacks: kernels, launch, and the [serving] table's scheduler and host costs, fitted per stack) with "
      "the client and engine flags of the benchmark that measured it, told by its silicon_data_source: aiconfigurator's "
      "runs fixed lengths and the token budget its generator deployed; InferenceMAX's runs lengths drawn uniformly from "
      "[0.8 x isl, isl] and [0.8 x osl, osl] and its launch scripts' budgets and layouts (--max-tokens). Blank or 0 "
      "cells are filled by documented assumptions (docs/serving.md), printed on the row (column 'assumed') and counted; a row "
      "that cannot be set up or whose simulation stops is listed with its file:line and reason and the rest still run "
      "(exit 0, or 1 with --strict). A file that cannot be read, lacks a required column or is over 64 MiB exits 2");
  cmd->add_option("FILE", o->files, "Cases CSVs, one or more (default validation/serving/h100_llama31_8b_trtllm.csv; "
                                   "validation/serving/multi_stack.csv holds 732 rows of three stacks)")
      ->check(CLI::ExistingFile);
  cmd->add_option("-j,--jobs", o->jobs, "Worker processes (default 1)")->check(whole_number_between(1, 256));
  cmd->add_flag("--strict", o->strict, "Exit 1 when any row is not simulated");
  cmd->add_option("--backend", o->backends, "Only rows of this backend (trtllm, vllm, sglang; repeatable)");
  cmd->add_option("--stack", o->settings.stack, "The software stack every row runs (configs/stacks or a .toml; '' for none; "
                                                "default: each row's backend's - trtllm: trtllm-1.x, TensorRT-LLM 1.0's "
                                                "PyTorch flow; vllm; sglang - at the row's backend_version, so the "
                                                "stack's [releases] up to it apply, e.g. vLLM's async scheduling from 0.14)");
  cmd->add_option("--every", o->every, "Run every N-th row only (default 1: all)")->check(whole_number_between(1, 1000));
  cmd->add_option("--requests-per-client", o->settings.requests_per_client, "Requests per closed-loop client (default 10)")
      ->check(whole_number_between(1, 1000));
  cmd->add_option("--max-requests", o->settings.max_requests, "At most N requests per row, and at least 2 per client (default 0: "
                                                              "no cap)")
      ->check(whole_number_between(0, 10000000));
  cmd->add_option("--batch-offset", o->settings.batch_offset, "Server batch limit = batch_size + N (default: the stack's "
                                                              "[serving] batch_offset, 0 for every shipped stack)")
      ->check(whole_number_between(-1000, 1000));
  cmd->add_option("--max-tokens", o->settings.max_tokens, "Most tokens per iteration (default: as the row's benchmark deployed "
                                                          "them. aiconfigurator's generator: TensorRT-LLM and vLLM batch_size + "
                                                          "prompt + 1500, SGLang prompt + 1500 up to the stack's 8192; "
                                                          "InferenceMAX's scripts: vLLM 8192, SGLang 32768, TensorRT-LLM "
                                                          "batch + prompt + 64 (at least 8192) for DeepSeek, 20000 for gpt-oss, "
                                                          "16384 for Llama)")
      ->check(whole_number_between(1, 1 << 20));
  cmd->add_option("--iteration-overhead-ms", o->overhead_ms, "Host time per iteration (default: the stack's)")->check(non_negative_number());
  cmd->add_option("--sequence-overhead-us", o->sequence_overhead_us, "Host time per sequence and iteration (default: the stack's; "
                                                                            "trtllm-1.x 15, fitted on its rows)")
      ->check(non_negative_number());
  cmd->add_option("--max-prompts", o->settings.max_prompts, "Most prompts an iteration starts (default: the stack's; 0 for every "
                                                            "shipped stack: as many as fit, as the engines do)")
      ->check(whole_number_between(0, 1 << 20));
  cmd->add_flag("--no-late-release", o->no_late_release, "Free a finished request's slot in the iteration it ends (default: "
                                                         "the stack's; trtllm-1.x one step late, chosen from its rows)");
  cmd->add_flag("--overlap-scheduler", o->settings.overlap_host, "Host work of graph-launched iterations overlaps the pass "
                                                                "before (TensorRT-LLM's overlap scheduler; default off, as fitted)");
  cmd->add_option("--frontend-request-us", o->frontend_request_us, "API server: host time per request taken in (default: the stack's)")
      ->check(non_negative_number());
  cmd->add_option("--frontend-prompt-token-us", o->frontend_prompt_token_us, "API server: and per prompt token (default 0)")
      ->check(non_negative_number());
  cmd->add_option("--frontend-response-us", o->frontend_response_us, "API server: host time per streamed response, one per request "
                                                                      "and iteration (default: the stack's; trtllm-1.x 80, fitted on its rows)")
      ->check(non_negative_number());
  cmd->add_option("--ramp-requests", o->settings.ramp_requests, "Spread the clients' first requests over N request "
                                                                "durations, estimated from a simulated decode step (default 0)")
      ->check(non_negative_number());
  cmd->add_option("--buckets", o->settings.buckets_per_octave, "Iteration-shape buckets per octave (default 32; 0 exact)")
      ->check(whole_number_between(0, 4096));
  cmd->add_flag("--all-layers", o->all_layers, "Simulate every layer (default: identical layers replayed, exactly)");
  add_json_option(cmd, o->json);
  cmd->add_option("--csv", o->csv, "Write one row per case to FILE (simulated, not set up and stopped rows, with file, line and reason)");
  cmd->add_option("--plot", o->plot, "Draw measured against simulated TTFT, TPOT and requests/s, a point per row coloured by "
                                     "concurrency, to FILE.png or FILE.svg (gnuplot)");
  cmd->callback([o] { run(*o); });
}

}  // namespace roofsim
