// `roofsim cases serving`: the measured serving runs, simulated row by row.
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
  std::string file = std::string(ROOFSIM_CONFIG_DIR) + "/../validation/serving/h100_llama31_8b_trtllm.csv";
  std::int64_t every = 1;
  ServingCaseSettings settings;
  // Host times in the flags' units; unset, ServingCaseSettings keeps its (fitted) defaults.
  std::optional<double> overhead_ms, sequence_overhead_us, frontend_request_us, frontend_prompt_token_us, frontend_response_us;
  bool all_layers = false, no_late_release = false;
  std::string json, csv, plot;
};

std::string pct(double e) { return (e >= 0 ? "+" : "") + format_fixed(100.0 * e, 1) + "%"; }

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
  if (o.frontend_request_us) s.frontend.request_s = *o.frontend_request_us * 1e-6;
  if (o.frontend_prompt_token_us) s.frontend.prompt_token_s = *o.frontend_prompt_token_us * 1e-6;
  if (o.frontend_response_us) s.frontend.response_s = *o.frontend_response_us * 1e-6;
  o.settings.sample_layers = !o.all_layers;
  if (o.no_late_release) s.late_release = false;
  std::vector<ServingCase> all = load_serving_cases(o.file), cases, skipped;
  for (std::size_t i = 0; i < all.size(); i += static_cast<std::size_t>(o.every)) {
    (all[i].not_simulated.empty() ? cases : skipped).push_back(all[i]);
  }
  // Rows roofsim cannot set up are listed, not simulated; a file with none it can is refused.
  std::map<std::string, int> reasons;
  for (const ServingCase& c : skipped) ++reasons[c.not_simulated];
  auto reason_lines = [&] {
    std::ostringstream r;
    for (const auto& [why, n] : reasons) r << "  " << n << (n == 1 ? " row: " : " rows: ") << why << "\n";
    return r.str();
  };
  if (cases.empty()) throw InputError(o.file + ": no row roofsim can set up:\n" + reason_lines());
  std::set<std::string> models, systems;
  for (const ServingCase& c : cases) {
    models.insert(c.model_path);
    systems.insert(c.system);
  }
  const bool many_models = models.size() > 1, many_systems = systems.size() > 1;
  // A progress line once a second, in place on a terminal (one line each in a log).
  ProgressLine line("cases serving", "cases");
  const std::vector<ServingCaseResult> results = run_serving_cases(cases, o.settings, line.control());
  line.finish();
  std::ostream& os = human_out(o.json);
  std::vector<std::string> header;
  if (many_models) header.push_back("model");
  if (many_systems) header.push_back("system");
  for (const char* h : {"isl", "osl", "tp", "conc", "TTFT ms", "sim", "error", "TPOT ms", "sim", "error", "req/s", "sim", "error"}) {
    header.push_back(h);
  }
  TextTable t(header);
  // Absolute errors summed: TTFT, TPOT, requests/s.
  struct Errors {
    double ttft = 0, tpot = 0, requests = 0;
    void add(const ServingCaseResult& r) {
      ttft += std::abs(r.ttft_error());
      tpot += std::abs(r.tpot_error());
      requests += std::abs(r.requests_error());
    }
    std::string mape(int n) const {
      return "TTFT " + format_fixed(100.0 * ttft / n, 1) + "% TPOT " + format_fixed(100.0 * tpot / n, 1) + "% requests/s " +
             format_fixed(100.0 * requests / n, 1) + "%";
    }
  };
  std::map<std::string, Errors> by_group;
  std::map<std::string, int> group_count;
  Errors total;
  std::map<std::int64_t, Errors> by_conc, by_tp;
  std::map<std::int64_t, int> count, tp_count;
  std::ostringstream csv;
  csv << "id,isl,osl,tp,concurrency,ttft_ms,sim_ttft_ms,ttft_error,tpot_ms,sim_tpot_ms,tpot_error,requests_per_s,sim_requests_per_s,"
         "requests_per_s_error,waiting,sim_waiting,model,system,note\n";
  nlohmann::json rows = nlohmann::json::array();
  for (const ServingCaseResult& r : results) {
    const ServingCase& c = r.c;
    std::vector<std::string> cells;
    if (many_models) cells.push_back(c.model_path);
    if (many_systems) cells.push_back(c.system);
    for (const std::string& v : {std::to_string(c.isl), std::to_string(c.osl), std::to_string(c.tp), std::to_string(c.concurrency),
                                 format_fixed(c.ttft_s * 1e3, 1), format_fixed(r.ttft_s * 1e3, 1), pct(r.ttft_error()),
                                 format_fixed(c.tpot_s * 1e3, 2), format_fixed(r.tpot_s * 1e3, 2), pct(r.tpot_error()),
                                 format_fixed(r.c.requests_per_s(), 2), format_fixed(r.requests_per_s(), 2), pct(r.requests_error())}) {
      cells.push_back(v);
    }
    t.add_row(cells);
    if (many_models || many_systems) {
      const std::string group = (many_models ? c.model_path : std::string()) + (many_models && many_systems ? " on " : "") +
                                (many_systems ? c.system : std::string());
      by_group[group].add(r);
      ++group_count[group];
    }
    total.add(r);
    by_conc[c.concurrency].add(r);
    ++count[c.concurrency];
    by_tp[c.tp].add(r);
    ++tp_count[c.tp];
    csv << c.id << ',' << c.isl << ',' << c.osl << ',' << c.tp << ',' << c.concurrency << ',' << c.ttft_s * 1e3 << ','
        << r.ttft_s * 1e3 << ',' << r.ttft_error() << ',' << c.tpot_s * 1e3 << ',' << r.tpot_s * 1e3 << ',' << r.tpot_error()
        << ',' << r.c.requests_per_s() << ',' << r.requests_per_s() << ',' << r.requests_error() << ',' << r.c.waiting()
        << ',' << r.waiting() << ',' << c.model_path << ',' << c.system << ',' << c.note << '\n';
    rows.push_back({{"id", c.id}, {"isl", c.isl}, {"osl", c.osl}, {"tp", c.tp}, {"concurrency", c.concurrency},
                    {"ttft_s", c.ttft_s}, {"sim_ttft_s", r.ttft_s}, {"tpot_s", c.tpot_s}, {"sim_tpot_s", r.tpot_s},
                    {"requests_per_s", r.c.requests_per_s()}, {"sim_requests_per_s", r.requests_per_s()},
                    {"waiting", r.c.waiting()}, {"sim_waiting", r.waiting()}, {"model", c.model_path}, {"system", c.system}, {"note", c.note}});
  }
  const double n = static_cast<double>(results.size());
  std::set<std::string> stacks;
  bool chunked = false;
  for (const ServingCase& c : cases) {
    stacks.insert(serving_case_stack(c, o.settings));
    chunked = chunked || c.backend != "trtllm";
  }
  std::string stacks_used;
  for (const std::string& st : stacks) {
    if (!st.empty()) stacks_used += (stacks_used.empty() ? " on stack " : ", ") + st;
  }
  os << "roofsim cases serving: " << results.size() << " measured runs (" << o.file << "), simulated"
     << stacks_used << " with " << o.settings.requests_per_client << " requests per client, server batch limit = batch_size"
     << (o.settings.batch_offset ? (o.settings.batch_offset > 0 ? " + " : " - ") + std::to_string(std::abs(o.settings.batch_offset)) : "")
     << ", " << (o.settings.max_tokens > 0 ? std::to_string(o.settings.max_tokens) : std::string("batch_size + prompt + 1500"))
     << " tokens per iteration" << (chunked && o.settings.max_tokens <= 0 ? " (vLLM and SGLang rows: chunked prefill in 8192, 2048 for vLLM on an A100)" : "")
     << (o.settings.max_prompts > 0 ? ", TensorRT-LLM rows at most " + std::to_string(o.settings.max_prompts) +
                                          (o.settings.max_prompts == 1 ? " prompt" : " prompts") + " started per iteration" : "")
     << (s.late_release && !s.overlap_host ? ", slots freed one step late" : "")
     << ", iteration overhead " << format_fixed(s.iteration_overhead_s * 1e3, 2) << " ms + "
     << format_fixed(s.sequence_overhead_s * 1e6, 1) << " us per sequence" << (s.overlap_host ? " (overlapped)" : "") << ", API server " << format_fixed(s.frontend.request_s * 1e6, 0)
     << " us per request + " << format_fixed(s.frontend.response_s * 1e6, 0) << " us per streamed response\n\n";
  t.print(os);
  os << "\nrequests/s: concurrency / (TTFT + (output - 1) x TPOT), the closed loop's throughput from the means, measured and "
        "simulated alike\n";
  os << "mean absolute error: " << total.mape(static_cast<int>(results.size())) << "\nby concurrency:";
  for (const auto& [conc, e] : by_conc) os << "\n  c" << conc << ": " << e.mape(count[conc]);
  if (by_tp.size() > 1) {
    os << "\nby tensor parallelism:";
    for (const auto& [tp, e] : by_tp) os << "\n  tp" << tp << ": " << e.mape(tp_count[tp]);
  }
  os << "\n";
  if (!by_group.empty()) {
    os << "by " << (many_models ? (many_systems ? "model and system" : "model") : "system") << ":\n";
    for (const auto& [group, e] : by_group) {
      os << "  " << group << " (" << group_count[group] << "): " << e.mape(group_count[group]) << "\n";
    }
  }
  std::map<std::string, int> notes;
  for (const ServingCaseResult& r : results) {
    if (!r.c.note.empty()) ++notes[r.c.note];
  }
  for (const auto& [note, n] : notes) os << "approximated in " << n << (n == 1 ? " row: " : " rows: ") << note << "\n";
  if (!skipped.empty()) os << "not simulated (" << skipped.size() << " of " << skipped.size() + cases.size() << " rows):\n" << reason_lines();
  for (const ServingCase& c : skipped) {
    csv << c.id << ',' << c.isl << ',' << c.osl << ',' << c.tp << ',' << c.concurrency << ',' << c.ttft_s * 1e3 << ",,," << c.tpot_s * 1e3
        << ",,," << c.requests_per_s() << ",,," << c.waiting() << ",," << c.model_path << ',' << c.system << ",\"not simulated: " << c.not_simulated << "\"\n";
  }
  nlohmann::json not_simulated = nlohmann::json::array();
  for (const ServingCase& c : skipped) not_simulated.push_back({{"id", c.id}, {"line", c.line}, {"reason", c.not_simulated}});
  if (!o.csv.empty()) write_text(o.csv, csv.str());
  if (!o.plot.empty()) {
    write_serving_cases_plot(o.plot, "roofsim cases serving: " + std::to_string(results.size()) + " measured runs; mean absolute error " +
                                         total.mape(static_cast<int>(results.size())),
                             results);
  }
  if (!o.json.empty()) {
    write_json(o.json, {{"cases", rows}, {"ttft_mape", total.ttft / n}, {"tpot_mape", total.tpot / n}, {"requests_per_s_mape", total.requests / n}, {"not_simulated", not_simulated}});
  }
}

}  // namespace

void add_serving_cases_command(CLI::App& app) {
  CLI::App* cases = app.get_subcommand("cases");
  auto o = std::make_shared<Options>();
  CLI::App* cmd = cases->add_subcommand(
      "serving", "Simulate measured serving runs (aiconfigurator's silicon-sample format; default: TensorRT-LLM on H100, "
                 "Llama-3.1-8B, concurrency 8-128, TP 1-8) with `serve` and show each row's TTFT, TPOT and requests/s "
                 "errors (requests/s: concurrency / (TTFT + (output - 1) x TPOT), the closed loop's throughput); rows "
                 "roofsim cannot set up (a system or model without a preset, a layout it does not model) are listed "
                 "with the reason");
  cmd->add_option("FILE", o->file, "Cases CSV (default validation/serving/h100_llama31_8b_trtllm.csv)")->check(CLI::ExistingFile);
  cmd->add_option("--stack", o->settings.stack, "The software stack every row runs (configs/stacks or a .toml; '' for none; "
                                                "default: each row's backend's - trtllm: trtllm-1.x, TensorRT-LLM 1.0's "
                                                "PyTorch flow; vllm; sglang)");
  cmd->add_option("--every", o->every, "Run every N-th row only (default 1: all)")->check(whole_number_between(1, 1000));
  cmd->add_option("--requests-per-client", o->settings.requests_per_client, "Requests per closed-loop client (default 10)")
      ->check(whole_number_between(1, 1000));
  cmd->add_option("--batch-offset", o->settings.batch_offset, "Server batch limit = concurrency + N (default -1: fitted, "
                                                              "one request always waits for a slot; docs/serving.md)")
      ->check(whole_number_between(-1000, 1000));
  cmd->add_option("--max-tokens", o->settings.max_tokens, "Most tokens per iteration (default: concurrency + prompt + "
                                                          "1500, as aiconfigurator deployed these runs; TensorRT-LLM's own default is 8192)")
      ->check(whole_number_between(1, 1 << 20));
  cmd->add_option("--iteration-overhead-ms", o->overhead_ms, "Host time per iteration (default 0)")->check(non_negative_number());
  cmd->add_option("--sequence-overhead-us", o->sequence_overhead_us, "Host time per sequence and iteration (default 15, "
                                                                            "fitted on the even rows)")
      ->check(non_negative_number());
  cmd->add_option("--max-prompts", o->settings.max_prompts, "TensorRT-LLM rows: most prompts an iteration starts "
                                                            "(default 1, chosen from the rows; 0: as many as fit)")
      ->check(whole_number_between(0, 1 << 20));
  cmd->add_flag("--no-late-release", o->no_late_release, "TensorRT-LLM rows: free a finished request's slot in the "
                                                         "iteration it ends (default: one step late, as chosen from the rows)");
  cmd->add_flag("--overlap-scheduler", o->settings.overlap_host, "Host work of graph-launched iterations overlaps the pass "
                                                                "before (TensorRT-LLM's overlap scheduler; default off, as fitted)");
  cmd->add_option("--frontend-request-us", o->frontend_request_us, "API server: host time per request taken in (default 0)")
      ->check(non_negative_number());
  cmd->add_option("--frontend-prompt-token-us", o->frontend_prompt_token_us, "API server: and per prompt token (default 0)")
      ->check(non_negative_number());
  cmd->add_option("--frontend-response-us", o->frontend_response_us, "API server: host time per streamed response, one per request and iteration "
                                                                      "(default 80, fitted on the odd rows; 0: no API server)")
      ->check(non_negative_number());
  cmd->add_option("--ramp-requests", o->settings.ramp_requests, "Spread the clients' first requests over N request "
                                                                "durations, estimated from a simulated decode step (default 0)")
      ->check(non_negative_number());
  cmd->add_option("--buckets", o->settings.buckets_per_octave, "Iteration-shape buckets per octave (default 32; 0 exact)")
      ->check(whole_number_between(0, 4096));
  cmd->add_flag("--all-layers", o->all_layers, "Simulate every layer (default: identical layers replayed, exactly)");
  add_json_option(cmd, o->json);
  cmd->add_option("--csv", o->csv, "Write one row per case to FILE");
  cmd->add_option("--plot", o->plot, "Draw measured against simulated TTFT, TPOT and requests/s, a point per row coloured by "
                                     "concurrency, to FILE.png or FILE.svg (gnuplot)");
  cmd->callback([o] { run(*o); });
}

}  // namespace roofsim
