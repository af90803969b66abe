// `roofsim search`: serving runs over deployment layouts (tensor parallel replicas, optionally
// disaggregated prefill/decode splits) and concurrencies; the Pareto front of tokens/s per GPU
// against tokens/s per user.
#include <chrono>
#include <iostream>
#include <map>
#include <memory>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/hardware.hpp"
#include "core/parse.hpp"
#include "experiment/plot.hpp"
#include "serving/search.hpp"
#include "serving/serving_settings.hpp"
#include "serving/workload.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "experiment/results.hpp"
#include "sim/output.hpp"
#include "sim/progress_line.hpp"
#include "serving/stack_serving.hpp"
#include "experiment/stack.hpp"
#include "workloads/model.hpp"

namespace roofsim {

namespace {

struct SearchOptions {
  ExperimentFlags x;
  std::map<std::string, std::string> serving;  // the flag texts of search_serving_settings()
  std::int64_t gpus = 8, requests_per_client = 8;
  std::string tps, pps = "1", eps = "1", concurrencies;
  bool disaggregated = false;
  std::string csv, json, plot;
};

// "1,2,4" -> {1, 2, 4}, each a whole number in [lo, hi].
std::vector<std::int64_t> parse_list(const std::string& text, const std::string& flag, std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> values;
  for (const std::string& part : split_commas(text)) {
    const std::optional<std::int64_t> v = parse_integer(part);
    if (!v || *v < lo || *v > hi) {
      throw InputError(flag + " " + text + ": '" + part + "' is not a whole number from " + std::to_string(lo) + " to " +
                       std::to_string(hi) + "; give a list such as 1,2,4,8");
    }
    values.push_back(*v);
  }
  return values;
}

std::string millis_1dp(double s) { return format_fixed(s * 1e3, 1); }

std::vector<std::string> row(const SearchPoint& p, bool slo_set) {
  return {p.layout,
          std::to_string(p.concurrency),
          std::to_string(p.total_concurrency),
          format_fixed(p.tok_s_per_gpu, 1),
          format_fixed(p.tok_s_per_user, 1),
          millis_1dp(p.ttft_p90_s),
          millis_1dp(p.tpot_mean_s),
          slo_set ? format_fixed(100.0 * p.slo_attainment, 0) + "%" : "-"};
}

void print_table(std::ostream& os, const std::vector<SearchPoint>& points, bool slo_set) {
  const std::vector<std::string> header = {"layout", "clients", "all clients", "tok/s/GPU", "tok/s/user",
                                           "TTFT p90 ms", "TPOT ms", "SLO met"};
  const std::vector<std::size_t> front = pareto_front(points);
  os << "Pareto front (" << front.size() << (front.size() == 1 ? " point" : " points") << (slo_set ? " meeting the SLOs" : "")
     << "; from the most tokens/s per GPU to the most per user):\n";
  TextTable f(header);
  for (std::size_t i : front) f.add_row(row(points[i], slo_set));
  f.print(os);

  os << "\nBest point of each layout (the most tokens/s per GPU" << (slo_set ? " among those meeting the SLOs" : "") << "):\n";
  TextTable b(header);
  std::vector<std::string> order;
  std::map<std::string, const SearchPoint*> best;
  std::map<std::string, std::string> skipped;  // layout -> error (the first)
  std::map<std::string, int> skipped_points;
  for (const SearchPoint& p : points) {
    if (!best.count(p.layout) && !skipped.count(p.layout)) order.push_back(p.layout);
    if (!p.ok()) {
      if (!skipped.count(p.layout)) skipped[p.layout] = render_setting_names(p.error, SettingNames::flag);
      ++skipped_points[p.layout];
      continue;
    }
    if (!p.meets_slo) {
      best.emplace(p.layout, nullptr);
      continue;
    }
    const SearchPoint*& b_ = best[p.layout];
    if (b_ == nullptr || p.tok_s_per_gpu > b_->tok_s_per_gpu) b_ = &p;
  }
  for (const std::string& name : order) {
    const auto it = best.find(name);
    if (it == best.end()) continue;  // every point skipped: below
    if (it->second) {
      b.add_row(row(*it->second, slo_set));
    } else {
      b.add_row({name, "-", "-", "-", "-", "-", "-", "none"});
    }
  }
  b.print(os);
  if (!skipped.empty()) {
    os << "\nSkipped (the model or machine cannot run them):\n";
    for (const std::string& name : order) {
      const auto it = skipped.find(name);
      if (it == skipped.end()) continue;
      os << "  " << name << " (" << skipped_points[name] << (skipped_points[name] == 1 ? " point" : " points") << "): " << it->second << "\n";
    }
  }
}

void search(const SearchOptions& o, const CLI::App& cmd) {
  for (const auto& [path, flag] : {std::pair{o.json, "--json"}, {o.csv, "--csv"}, {o.plot, "--plot"}}) check_output_path(path, flag);
  if (!o.plot.empty()) plot_terminal(o.plot);  // a .png or .svg name, before the run
  SearchSpec spec;
  ServingSetup& s = spec.base;
  apply_experiment_flags(o.x, cmd, s.machine);
  s.source = "flags";
  s.workload = default_serving_workload();  // serve's defaults; the search sets the arrivals
  for (const std::string& name : search_serving_settings()) {
    const ServingSetting& setting = *find_serving_setting(name);
    if (setting_flag_given(cmd, setting.spec)) setting.set(s, flag_setting_value(setting.spec, o.serving.at(name)));
  }
  // A stack runs its server as its [serving] table says, as in `serve --stack`, where no flag
  // says otherwise (search's own flags: --max-tokens).
  if (cmd.count("--stack") && !o.x.value("stack").empty()) {
    apply_stack_serving(load_stack(o.x.value("stack")).serving, s,
                        [&](const std::string& name) { return name == "max_tokens" && cmd.count("--max-tokens") > 0; });
  }
  spec.gpus = o.gpus;
  if (!o.tps.empty()) spec.tps = parse_list(o.tps, "--tp", 1, o.gpus);
  spec.pps = parse_list(o.pps, "--pp", 1, o.gpus);
  spec.eps = parse_list(o.eps, "--ep", 1, o.gpus);
  if (!o.concurrencies.empty()) spec.concurrencies = parse_list(o.concurrencies, "--concurrency", 1, 1 << 20);
  spec.disaggregated = o.disaggregated;
  spec.requests_per_client = o.requests_per_client;

  const ModelConfig model = s.machine.model_config ? *s.machine.model_config : load_model(s.machine.model);
  const HardwareSpec hw = s.machine.hardware ? *s.machine.hardware : load_hardware(s.machine.hw);
  const bool slo_set = s.slo_ttft_s > 0 || s.slo_tpot_s > 0;

  std::ostream& os = human_out({{o.json, "--json"}, {o.csv, "--csv"}});
  ProgressLine progress("search", "points", true);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<SearchPoint> points = run_search(spec, progress.control());
  progress.finish();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t ran = 0;
  for (const SearchPoint& p : points) ran += p.ok() ? 1 : 0;
  if (ran == 0) {
    throw InputError("no layout of the search could run; the first refusal: " + points.front().layout + ": " +
                     points.front().error);
  }

  std::string slos = "no SLOs";
  if (slo_set) {
    slos = s.slo_ttft_s > 0 ? "TTFT <= " + format_seconds(s.slo_ttft_s) : "";
    if (s.slo_tpot_s > 0) slos += (slos.empty() ? "" : " and ") + std::string("TPOT <= ") + format_seconds(s.slo_tpot_s);
    slos += " for 90% of requests";
  }
  os << "roofsim search: " << model.name << " on " << spec.gpus << " x " << hw.description << ", simulated\n"
     << "workload   closed loop, " << spec.requests_per_client << " requests per client; prompt " << describe(s.workload.prompt)
     << ", output " << describe(s.workload.output) << "; " << slos << "\n"
     << "layouts    tensor parallel replicas" << (spec.eps.size() > 1 || spec.eps.front() > 1 ? ", expert parallel" : "")
     << (spec.pps.size() > 1 || spec.pps.front() > 1 ? " in pipeline stages" : "")
     << (spec.disaggregated ? " and disaggregated prefill/decode splits" : "")
     << "; clients per replica (disaggregated: per decode instance)\n\n";
  print_table(os, points, slo_set);
  os << "\n" << points.size() << " points, " << ran << " run, " << points.size() - ran << " skipped; wall time "
     << format_seconds(wall_s) << "\n";

  if (!o.csv.empty()) write_text(o.csv, search_csv(points, SettingNames::flag));
  if (!o.json.empty()) {
    nlohmann::json j = {{"kind", "search"}, {"model", model.name}, {"hw", hw.description}, {"gpus", spec.gpus},
                        {"prompt", describe(s.workload.prompt)}, {"output", describe(s.workload.output)},
                        {"requests_per_client", spec.requests_per_client}, {"disaggregated", spec.disaggregated},
                        {"slo_ttft_s", s.slo_ttft_s}, {"slo_tpot_s", s.slo_tpot_s},
                        {"points", search_points_json(points, SettingNames::flag)}};
    write_json(o.json, versioned(j));
  }
  if (!o.plot.empty()) {
    write_search_plot(o.plot,
                      {"roofsim search: " + model.name + " on " + std::to_string(spec.gpus) + " x " + hw.description,
                       "prompt " + describe(s.workload.prompt) + ", output " + describe(s.workload.output) + "; " + slos},
                      points);
  }
}

}  // namespace

void add_search_command(CLI::App& app) {
  auto o = std::make_shared<SearchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "search",
      "Search deployments: for a model, a number of GPUs and SLOs, simulate serving (closed-loop clients, continuous\n"
      "batching) for each parallelism layout (tensor parallel groups of --tp chips, --ep of them expert parallel, in\n"
      "--pp pipeline stages, as many replicas as fit the GPUs; with --disaggregated also every split into prefill and decode instances) at each\n"
      "concurrency, and report the Pareto front of output tokens/s per GPU against tokens/s per user among the\n"
      "points that meet the SLOs (90% of a point's requests meet both), with the best point of each layout. A replica is\n"
      "simulated once and its throughput multiplied by the replicas. The workload and scheduler flags are serve's, with\n"
      "its defaults.\n"
      "Example: roofsim search --model llama-3-8b --gpus 8 --prompt 1024 --output 256 --concurrency 1,4,16,64 \\\n"
      "           --slo-ttft-ms 1000 --slo-tpot-ms 50 --plot pareto.png --csv points.csv");
  add_experiment_flags(cmd, o->x, true);
  // The search sets the parallelism itself: no single --tp, stages or fabric.
  for (const char* name : {"tp", "pp", "ep", "topology"}) remove_experiment_flag(cmd, o->x, name);
  cmd->add_option("--gpus", o->gpus, "GPUs (chips) to deploy on (default 8)")->check(whole_number_between(1, 4096));
  cmd->add_option("--tp", o->tps, "Tensor-parallel degrees to try, comma-separated (default: every power of two "
                                  "dividing --gpus that the model's heads allow)")
      ->check(non_empty_list());
  cmd->add_option("--pp", o->pps, "Pipeline stages to try with each TP degree, comma-separated (default 1; a replica "
                                  "of tp x pp chips runs one micro-batch per stage, as serve --pp does)");
  cmd->add_option("--ep", o->eps, "Expert-parallel degrees to try with each TP degree and stage count, comma-separated "
                                  "(default 1; MoE models: a replica of tp x ep x pp chips, attention data parallel over "
                                  "its EP ranks, as serve --ep does)");
  cmd->add_option("--concurrency", o->concurrencies, "Closed-loop clients per replica to try, comma-separated; with "
                                                     "disaggregation per decode instance (default 1,2,4,...,256)")
      ->check(non_empty_list());
  cmd->add_flag("--disaggregated", o->disaggregated, "Also try every split of the GPUs into P prefill instances of "
                                                     "TP tp_p and D decode instances of TP tp_d, each instance --ep ranks of "
                                                     "those (P*tp_p*ep + D*tp_d*ep = --gpus, tp_p and tp_d from --tp), each "
                                                     "with concurrency x D clients");
  cmd->add_option("--requests-per-client", o->requests_per_client, "Requests each run serves per client (default 8)")
      ->check(whole_number_between(1, 1000000));
  for (const std::string& name : search_serving_settings()) add_setting_flag(cmd, find_serving_setting(name)->spec, o->serving[name]);
  cmd->add_option("--csv", o->csv, "Write every point (skipped ones with their error) to FILE ('-' = standard output)");
  add_json_option(cmd, o->json);
  cmd->add_option("--plot", o->plot, "Write the chart (FILE.png or FILE.svg, drawn by gnuplot): tokens/s per user "
                                     "across, tokens/s per GPU up, a series per layout, points missing the SLOs as grey "
                                     "rings, the Pareto front as a line");
  cmd->callback([o, cmd] { search(*o, *cmd); });
}

}  // namespace roofsim
