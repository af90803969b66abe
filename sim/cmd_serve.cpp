// `roofsim serve`: requests over time on the simulated machine, with continuous batching and a
// paged KV cache; latency percentiles, throughput and goodput.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/parse.hpp"
#include "experiment/plot.hpp"
#include "serving/stack_serving.hpp"
#include "serving/report.hpp"
#include "serving/serving.hpp"
#include "serving/serving_settings.hpp"
#include "serving/serving_trace.hpp"
#include "sim/cli_options.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/result_settings.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "sim/progress_line.hpp"
#include "sim/serve_report.hpp"
#include "validation/analytic.hpp"

namespace roofsim {

namespace {

struct ServeOptions {
  ExperimentFlags x;                           // the machine's settings
  std::string from;                            // a serving result whose settings to start from
  std::map<std::string, std::string> serving;  // the serving settings' flags as typed, by name
  std::string json, requests_csv, iterations_csv;
  std::string trace, plot;
};

void serve(const ServeOptions& o, const CLI::App& cmd) {
  for (const auto& [path, flag] : {std::pair{o.json, "--json"}, {o.requests_csv, "--requests-csv"}, {o.iterations_csv, "--iterations-csv"},
                                   {o.trace, "--trace"}, {o.plot, "--plot"}}) {
    check_output_path(path, flag);
  }
  if (!o.plot.empty()) plot_terminal(o.plot);  // a .png or .svg name, before the run
  Experiment machine;
  ServingSettings settings;
  std::set<std::string> machine_given;
  if (!o.from.empty()) {
    // What the result records, under the flags given: an arrival flag replaces its arrivals.
    nlohmann::json recorded = read_result_settings(o.from, "serving", "--from");
    if (cmd.count("--concurrency") + cmd.count("--rate") + cmd.count("--burst") + cmd.count("--requests-from") > 0) {
      for (const ServingSetting& s : serving_settings()) {
        if (s.spec.group == "arrivals") recorded.erase(s.spec.name);
      }
    }
    try {
      set_experiment_settings(machine, set_serving_part(settings, recorded, machine_given));
    } catch (const InputError& err) {
      throw InputError("--from " + o.from + ": " + err.what());
    }
  }
  apply_experiment_flags(o.x, cmd, machine);
  // The serving settings given, in the table's order (serving/serving_settings.hpp); --stack is
  // the machine's flag and the server's setting at once.
  for (const ServingSetting& s : serving_settings()) {
    if (!setting_flag_given(cmd, s.spec)) continue;
    settings.set(s.spec.name, flag_setting_value(s.spec, s.spec.name == "stack" ? o.x.value("stack") : o.serving.at(s.spec.name)));
  }
  for (const RunSetting& r : run_settings()) {
    if (setting_flag_given(cmd, r.spec)) machine_given.insert(r.spec.name);
  }
  const ServingSetup s = settings.finish(machine, o.from.empty() ? "flags" : o.from, machine_given);
  if (!o.plot.empty() && s.disaggregation.enabled) {
    throw InputError("--plot charts one instance's batch, queue and cache; a disaggregated run has several: use --trace, "
                     "which has a track and counters per instance");
  }

  std::ostream& os = human_out({{o.json, "--json"}, {o.requests_csv, "--requests-csv"}, {o.iterations_csv, "--iterations-csv"},
                                {o.trace, "--trace"}});
  // Progress once a second after the first (in place on a terminal, a line each in a log).
  ProgressLine progress("serve", "requests finished");
  ServingResult r = run_serving(s, progress.control());
  progress.finish();
  print_serve_report(os, r);
  if (!o.json.empty()) write_json(o.json, serving_json(r));
  if (!o.requests_csv.empty()) write_text(o.requests_csv, requests_csv(r));
  if (!o.iterations_csv.empty()) write_text(o.iterations_csv, iterations_csv(r));
  if (!o.trace.empty()) write_text(o.trace, serving_trace_json(r));
  if (!o.plot.empty()) write_serving_timeseries_plot(o.plot, r);
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Simulate serving: requests arrive over time and a scheduler batches them iteration by iteration\n"
               "(continuous batching, a paged KV cache); every iteration is a forward pass with its real shapes on the\n"
               "chip model. With no arguments: Llama-3-8B on one H100 SXM5, TensorRT-LLM-like in-flight batching, 100\n"
               "requests arriving as a Poisson process at 20 per second (about 70% of what that chip serves at these\n"
               "lengths), prompts lognormal with mean 1024 and sd 512 tokens, outputs lognormal with mean 128 and sd 64.\n"
               "Examples: roofsim serve --concurrency 64 --prompt normal:1000:200 --output lognormal:500:200\n"
               "          roofsim serve --rate 4 --requests 1000 --slo-ttft-ms 500 --slo-tpot-ms 50\n"
               "          roofsim serve --scheduler static --max-batch 16");
  add_experiment_flags(cmd, o->x, true);
  cmd->add_option("--from", o->from, "Serve again what a result records: the settings object of a roofsim serve --json result "
                                     "(or the Python module's serve() dict saved as JSON); flags override it, an arrival flag "
                                     "its arrivals");
  // One flag per serving setting, under its group's heading (--stack is the machine's, above).
  std::map<std::string, CLI::App*> groups;
  for (const ServingSetting& s : serving_settings()) {
    if (s.spec.name == "stack") continue;
    CLI::App* where = cmd;
    if (!s.spec.group.empty()) {
      CLI::App*& g = groups[s.spec.group];
      if (g == nullptr) g = cmd->add_option_group(s.spec.group);
      where = g;
    }
    add_setting_flag(where, s.spec, o->serving[s.spec.name]);
  }
  add_json_option(cmd, o->json);
  cmd->add_option("--requests-csv", o->requests_csv, "Write one row per request to FILE ('-' = standard output)");
  cmd->add_option("--iterations-csv", o->iterations_csv, "Write one row per iteration (batch, tokens, KV blocks, queue) to FILE");
  cmd->add_option("--trace", o->trace, "Write a Chrome trace-event JSON timeline to FILE (open it in Perfetto): a slice per "
                                       "iteration (prefill, decode or mixed, with its batch and shape), counters of batch "
                                       "size, tokens per iteration, KV blocks in use and requests waiting, and each "
                                       "request's waiting and generating on tracks shared by requests that never overlap");
  cmd->add_option("--plot", o->plot, "Write a chart over simulated time (FILE.png or FILE.svg, drawn by gnuplot): batch "
                                     "size and queue length, tokens per iteration, KV blocks in use against the capacity");
  cmd->callback([o, cmd] { serve(*o, *cmd); });
}

}  // namespace roofsim
