// `roofsim validate`: a suite of simulations (single ops across the intensity range, decode and
// prefill, collectives, published cases, the user's own cases) compared with the analytic
// model and with measurements; a Markdown report with roofline charts and JSON; exit status 1
// when an invariant of the design breaks. Every simulation runs as its own process.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <unistd.h>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/hardware.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "sim/processes.hpp"
#include "experiment/public_cases.hpp"

namespace roofsim {

namespace {

struct ValidateOptions {
  bool quick = false;
  std::string cases, report = "validation-report.md", json;
  int jobs = 2;
};

// One simulation of the suite.
struct Job {
  std::string id, kind;          // kind: sweep, ideal_sweep, run, collective, case, user_case
  std::vector<std::string> args;  // roofsim arguments, without --json
  std::string hw;
  nlohmann::json result;
  PublicCase user;                // for user cases
};

struct Invariant {
  std::string name;
  bool holds = true;
  std::string detail;
};

std::string pct(double x) { return format_fixed(100 * x, 1) + "%"; }

// Where the gap between a simulated run and its bound lies, op by op, from the simulation's
// own counts: for ops bound by compute, the sustained clock below the datasheet clock and the
// array work spent on padding; for ops bound by memory, the achievable bandwidth fraction and
// the bytes moved beyond the minimum; for every op its launch and the access latency of its
// first load and last write; what remains is pipeline fill and tails (loads not yet overlapped,
// waves not yet full); collectives; and time outside any op (dependency stalls).
nlohmann::json run_gap(const nlohmann::json& r, const HardwareSpec& hw) {
  DType act = DType::bf16;
  parse_dtype(r["activations_dtype"].get<std::string>(), act);
  const double peak = hw.matrix_peak_flops(act);
  const double sustained = peak * hw.matrix.sustained_clock_hz / hw.matrix.clock_hz *
                           (hw.matrix.dtype_efficiency.count(act) ? hw.matrix.dtype_efficiency.at(act) : 1.0);
  const double bw = hw.hbm.bandwidth, bw_eff = bw * hw.hbm.efficiency;
  double clock = 0, padding = 0, compute_rest = 0, efficiency = 0, traffic = 0, memory_rest = 0, link = 0, ops = 0;
  double launch = 0, latency = 0;
  // Every op pays the device's start-up once and waits at least one access latency for its
  // first load and one for its last write: exact per-op costs of the model, taken out of the rest.
  const double per_op_launch = hw.op_overhead_s, per_op_latency = 2 * hw.hbm.access_latency_s;
  for (const auto& op : r["ops"]) {
    const double sim = op["sim_time_s"].get<double>(), bound = op["bound_time_s"].get<double>();
    const double flops = op["flops"].get<double>(), bytes = op["bytes"].get<double>();
    ops += sim;
    const std::string roof = op["roof"];
    const double count = op["count"].get<double>();
    const double fixed_launch = count * per_op_launch, fixed_latency = count * per_op_latency;
    if (roof == "link") {
      link += sim - bound;
    } else if (roof == "compute" && flops > 0) {
      const double c = flops / sustained - flops / peak;
      const double p = (op["padded_flops"].get<double>() - flops) / sustained;
      clock += c;
      padding += p;
      launch += fixed_launch;
      latency += fixed_latency;
      compute_rest += sim - bound - c - p - fixed_launch - fixed_latency;
    } else if (roof == "memory") {
      const double e = bytes / bw_eff - bytes / bw;
      const double t = (op["sim_bytes"].get<double>() - bytes) / bw_eff;
      efficiency += e;
      traffic += t;
      launch += fixed_launch;
      latency += fixed_latency;
      memory_rest += sim - bound - e - t - fixed_launch - fixed_latency;
    } else {
      compute_rest += sim - bound;  // vector-unit and near-memory compute
    }
  }
  return {{"compute_sustained_clock_s", clock}, {"compute_tile_padding_s", padding},
          {"compute_pipeline_fill_and_tails_s", compute_rest}, {"memory_bandwidth_efficiency_s", efficiency},
          {"memory_extra_traffic_s", traffic}, {"memory_pipeline_fill_and_tails_s", memory_rest},
          {"launch_s", launch}, {"access_latency_s", latency},
          {"exposed_communication_s", link}, {"outside_ops_s", r["total_s"].get<double>() - ops}};
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Run the validation suite: simulated vs analytic for ops, inference and collectives on every "
                  "preset, published measurements, and your own cases; Markdown report + JSON; exit 1 if an "
                  "invariant breaks");
  cmd->add_flag("--quick", o->quick, "H100 and TPU v4 only, fewer points, the fast public cases without the held-out ones (for CI)");
  cmd->add_option("--cases", o->cases, "Your own cases: a CSV like validation/public_case_runs.csv with two more "
                                       "columns, reference and unit (metric: throughput, ttft or decode_tok_s)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--report", o->report, "Markdown report to write (charts go beside it)")->capture_default_str();
  add_json_option(cmd, o->json);
  cmd->add_option("-j,--jobs", o->jobs, "Simulations at once (default 2)")->check(CLI::Range(1, 64));
  cmd->callback([o] {
    const std::vector<std::string> hws = o->quick ? std::vector<std::string>{"h100_sxm5", "tpu_v4"}
                                                  : std::vector<std::string>{"h100_sxm5", "tpu_v4", "a100_sxm4_80gb", "h200_sxm"};
    const std::string points = o->quick ? "8" : "16";
    const std::filesystem::path report(o->report);
    const std::filesystem::path chart_dir = report.parent_path().empty() ? "." : report.parent_path();
    std::error_code ec;
    std::filesystem::create_directories(chart_dir, ec);
    if (ec) throw InputError(o->report + ": cannot create folder " + chart_dir.string() + " (" + ec.message() + ")");
    std::vector<Job> jobs;
    for (const auto& hw : hws) {
      jobs.push_back({"ops-" + hw, "sweep", {"sweep", "--hw", hw, "--points", points}, hw, {}, {}});
      const std::string chart = (chart_dir / (report.stem().string() + "-" + hw + ".png")).string();
      jobs.push_back({"ops-ideal-" + hw, "ideal_sweep", {"sweep", "--hw", hw, "--ideal", "--points", points, "--plot", chart}, hw, {}, {}});
      for (const char* batch : {"1", "16"}) {
        jobs.push_back({"decode-llama-3-8b-b" + std::string(batch) + "-" + hw, "run",
                        {"run", "--hw", hw, "--model", "llama-3-8b", "--batch", batch, "--prompt", "512", "--gen", "16"}, hw, {}, {}});
      }
      jobs.push_back({"prefill-llama-3-8b-2048-" + hw, "run",
                      {"run", "--hw", hw, "--model", "llama-3-8b", "--prompt", "2048", "--gen", "1"}, hw, {}, {}});
      if (!o->quick) {
        jobs.push_back({"decode-mistral-7b-b8-" + hw, "run",
                        {"run", "--hw", hw, "--model", "mistral-7b", "--batch", "8", "--prompt", "1024", "--gen", "16"}, hw, {}, {}});
      }
    }
    // Monotonicity: the same decode on twice the bandwidth.
    jobs.push_back({"decode-llama-3-8b-b1-h100_2xbw", "run",
                    {"run", "--hw", "h100_2xbw", "--model", "llama-3-8b", "--batch", "1", "--prompt", "512", "--gen", "16"},
                    "h100_2xbw", {}, {}});
    jobs.push_back({"allreduce-1GiB-h100-switch8", "collective", {"collective", "--hw", "h100_sxm5", "--topology", "switch:8", "--bytes", "1GiB"}, "h100_sxm5", {}, {}});
    jobs.push_back({"allreduce-1GiB-tpu_v4-4x4x4", "collective", {"collective", "--hw", "tpu_v4", "--topology", "4x4x4", "--bytes", "1GiB"}, "tpu_v4", {}, {}});
    // The routed lowerings: an all-to-all over the torus, and rings over groups that are no sub-torus.
    jobs.push_back({"alltoall-64MiB-tpu_v4-4x4x4", "collective", {"collective", "--hw", "tpu_v4", "--topology", "4x4x4", "--op", "alltoall", "--bytes", "64MiB"}, "tpu_v4", {}, {}});
    jobs.push_back({"allreduce-256MiB-tpu_v4-4x4x4-groups-of-8", "collective", {"collective", "--hw", "tpu_v4", "--topology", "4x4x4", "--group", "8", "--bytes", "256MiB"}, "tpu_v4", {}, {}});
    for (const PublicCase& c : load_public_cases()) {
      const bool slow = c.experiment.generate > 256 || c.experiment.batch * c.experiment.generate > 16384;
      if (o->quick && (slow || c.category == "held_out")) continue;  // ctest runs every case itself
      jobs.push_back({c.id, "case", {"cases", "run", c.id, "--tolerance", "1e9"}, c.experiment.hw, {}, {}});
    }
    if (!o->cases.empty()) {
      for (PublicCase& c : load_user_cases(o->cases)) {
        Job j{c.id, "user_case", experiment_arguments(c.experiment), c.experiment.hw, {}, c};
        jobs.push_back(j);
      }
    }

    const std::string dir = "/tmp/roofsim_validate_" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    std::vector<std::vector<std::string>> commands;
    std::vector<std::string> logs;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      std::vector<std::string> c = {self_path()};
      c.insert(c.end(), jobs[i].args.begin(), jobs[i].args.end());
      c.push_back("--json");
      c.push_back(dir + "/" + std::to_string(i) + ".json");
      commands.push_back(c);
      logs.push_back(dir + "/" + std::to_string(i) + ".log");
    }
    std::cerr << "roofsim validate: " << jobs.size() << " simulations, " << o->jobs << " at a time\n";
    run_all(commands, logs, o->jobs, dir, [&](std::size_t i) { return "validation item " + jobs[i].id; });
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      std::ifstream f(dir + "/" + std::to_string(i) + ".json");
      jobs[i].result = nlohmann::json::parse(f);
    }
    std::filesystem::remove_all(dir);

    // Invariants of ../shared/DESIGN.md, checked on what the suite produced.
    std::vector<Invariant> inv(5);
    inv[0].name = "1. no simulated op, run or collective beats its analytic bound";
    inv[1].name = "2. ideal runs within 1% of the bound far from the ridge";
    inv[2].name = "3. the emergent ridge within 5% of the analytic ridge (ideal sweeps)";
    inv[3].name = "4. more bandwidth never makes decode slower (h100_2xbw vs h100_sxm5)";
    inv[4].name = "5. simulated FLOPs equal the ops' FLOPs";
    auto breaks = [](Invariant& v, const std::string& what) {
      v.holds = false;
      v.detail += (v.detail.empty() ? "" : "; ") + what;
    };
    std::map<std::string, const Job*> by_id;
    for (const Job& j : jobs) by_id[j.id] = &j;
    for (const Job& j : jobs) {
      const nlohmann::json& r = j.result;
      if (j.kind == "sweep" || j.kind == "ideal_sweep") {
        for (const auto& p : r["points"]) {
          if (p["sim_time_s"].get<double>() < p["bound_time_s"].get<double>() * (1 - 1e-9)) breaks(inv[0], j.id + " " + p["name"].get<std::string>());
          if (std::fabs(p["sim_flops"].get<double>() / p["flops"].get<double>() - 1) > 1e-9) breaks(inv[4], j.id + " " + p["name"].get<std::string>());
          const double ridge = r["analytic_ridge"].get<double>(), intensity = p["intensity"].get<double>();
          if (j.kind == "ideal_sweep" && (intensity < ridge / 8 || intensity > 8 * ridge) &&
              p["sim_time_s"].get<double>() > 1.01 * p["bound_time_s"].get<double>()) {
            breaks(inv[1], j.id + " " + p["name"].get<std::string>());
          }
        }
        if (j.kind == "ideal_sweep" && std::fabs(r["emergent_ridge"].get<double>() / r["analytic_ridge"].get<double>() - 1) > 0.05) {
          breaks(inv[2], j.id);
        }
      } else if (j.kind == "run") {
        for (const char* k : {"ttft_s", "tpot_s", "total_s"}) {
          const std::string b = std::string("bound_") + k;
          if (r[k].is_number() && r[k].get<double>() < r[b].get<double>() * (1 - 1e-9)) breaks(inv[0], j.id + " " + k);
        }
      } else if (j.kind == "collective") {
        if (r["sim_time_s"].get<double>() < r["bound_time_s"].get<double>() * (1 - 1e-9)) breaks(inv[0], j.id);
      }
    }
    const Job* base = by_id["decode-llama-3-8b-b1-h100_sxm5"];
    const Job* more = by_id["decode-llama-3-8b-b1-h100_2xbw"];
    if (more->result["tpot_s"].get<double>() > base->result["tpot_s"].get<double>()) breaks(inv[3], "decode");

    // Cases against measurements, and the mean absolute percentage error per category.
    nlohmann::json out;
    out["cases"] = nlohmann::json::array();
    std::map<std::string, std::pair<double, int>> mape;
    const std::vector<PublicCase> public_cases = load_public_cases();
    for (const Job& j : jobs) {
      if (j.kind == "case") {
        const nlohmann::json& r = j.result;
        const std::string category = find_public_case(public_cases, j.id).category;
        out["cases"].push_back({{"id", j.id}, {"sim", r["sim"]}, {"reference", r["reference"]}, {"error", r["error"]},
                                {"unit", r["unit"]}, {"category", category}, {"source", r["source"]}});
        mape[category].first += std::fabs(r["error"].get<double>());
        mape[category].second += 1;
      } else if (j.kind == "user_case") {
        const double sim = case_metric_from_json(j.user, j.result);
        const double error = sim / j.user.reference - 1;
        out["cases"].push_back({{"id", j.id}, {"sim", sim}, {"reference", j.user.reference}, {"error", error},
                                {"unit", j.user.unit}, {"category", "user"}, {"source", o->cases}});
        mape["user"].first += std::fabs(error);
        mape["user"].second += 1;
      }
    }
    out["mape"] = nlohmann::json::object();
    for (const auto& [cat, v] : mape) out["mape"][cat] = v.first / v.second;
    out["invariants"] = nlohmann::json::array();
    for (const auto& v : inv) out["invariants"].push_back({{"invariant", v.name}, {"holds", v.holds}, {"detail", v.detail}});
    out["items"] = nlohmann::json::array();

    // The report.
    std::ostringstream md;
    md << "# roofsim validation report\n\n" << jobs.size() << " simulations" << (o->quick ? " (quick suite)" : "") << ".\n\n";
    md << "## Invariants\n\n| invariant | holds | where it breaks |\n|---|---|---|\n";
    for (const auto& v : inv) md << "| " << v.name << " | " << (v.holds ? "yes" : "**no**") << " | " << v.detail << " |\n";
    md << "\n## Single ops across the intensity range\n\n";
    for (const Job& j : jobs) {
      if (j.kind != "sweep" && j.kind != "ideal_sweep") continue;
      const nlohmann::json& r = j.result;
      md << "### " << j.id << "\n\nemergent ridge " << format_fixed(r["emergent_ridge"].get<double>(), 1) << " FLOP/B, analytic "
         << format_fixed(r["analytic_ridge"].get<double>(), 1) << " FLOP/B\n\n";
      if (j.kind == "ideal_sweep") md << "![roofline " << j.hw << "](" << report.stem().string() << "-" << j.hw << ".png)\n\n";
      md << "| op | intensity | simulated | bound | ratio | binding roof |\n|---|---|---|---|---|---|\n";
      for (const auto& p : r["points"]) {
        md << "| " << p["name"].get<std::string>() << " | " << format_fixed(p["intensity"].get<double>(), 1) << " | "
           << format_seconds(p["sim_time_s"].get<double>()) << " | " << format_seconds(p["bound_time_s"].get<double>()) << " | "
           << format_fixed(p["sim_time_s"].get<double>() / p["bound_time_s"].get<double>(), 3) << " | " << p["roof"].get<std::string>() << " |\n";
        out["items"].push_back({{"id", j.id + " " + p["name"].get<std::string>()}, {"sim", p["sim_time_s"]}, {"bound", p["bound_time_s"]},
                                {"ratio", p["sim_time_s"].get<double>() / p["bound_time_s"].get<double>()}, {"roof", p["roof"]}});
      }
      md << "\n";
    }
    md << "## Inference\n\nThe gap between a run and its bound, op by op, from the simulation's own counts. Ops bound "
          "by compute: the sustained clock below the datasheet clock, array work spent on padding. Ops bound by memory: "
          "the achievable bandwidth fraction, bytes moved beyond each operand once. Every op: its launch, and the access "
          "latency of its first load and last write. Pipeline fill and tails: what remains in compute-bound and "
          "memory-bound ops (slightly negative where an op's latency overlapped another op). Collectives. Time outside "
          "any op (dependency stalls; negative when independent ops "
          "overlapped).\n\n"
          "| run | TTFT | bound | TPOT | bound | total / bound | clock | padding | bandwidth eff. | extra traffic | launch | "
          "latency | fill and tails (compute) | fill and tails (memory) | communication | outside ops |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Job& j : jobs) {
      if (j.kind != "run") continue;
      const nlohmann::json& r = j.result;
      const nlohmann::json gap = run_gap(r, load_hardware(j.hw));
      const bool decode = r["tpot_s"].is_number();
      md << "| " << j.id << " | " << format_seconds(r["ttft_s"].get<double>()) << " | " << format_seconds(r["bound_ttft_s"].get<double>())
         << " | " << (decode ? format_seconds(r["tpot_s"].get<double>()) : "-") << " | "
         << (decode ? format_seconds(r["bound_tpot_s"].get<double>()) : "-") << " | "
         << format_fixed(r["total_s"].get<double>() / r["bound_total_s"].get<double>(), 3) << " | "
         << format_seconds(gap["compute_sustained_clock_s"].get<double>()) << " | "
         << format_seconds(gap["compute_tile_padding_s"].get<double>()) << " | "
         << format_seconds(gap["memory_bandwidth_efficiency_s"].get<double>()) << " | "
         << format_seconds(gap["memory_extra_traffic_s"].get<double>()) << " | "
         << format_seconds(gap["launch_s"].get<double>()) << " | "
         << format_seconds(gap["access_latency_s"].get<double>()) << " | "
         << format_seconds(gap["compute_pipeline_fill_and_tails_s"].get<double>()) << " | "
         << format_seconds(gap["memory_pipeline_fill_and_tails_s"].get<double>()) << " | "
         << format_seconds(gap["exposed_communication_s"].get<double>()) << " | "
         << format_seconds(gap["outside_ops_s"].get<double>()) << " |\n";
      out["items"].push_back({{"id", j.id}, {"sim", r["total_s"]}, {"bound", r["bound_total_s"]},
                              {"ratio", r["total_s"].get<double>() / r["bound_total_s"].get<double>()}, {"gap", gap}});
    }
    md << "\n## Collectives\n\n| collective | simulated | closed form | ratio | bus bandwidth |\n|---|---|---|---|---|\n";
    for (const Job& j : jobs) {
      if (j.kind != "collective") continue;
      const nlohmann::json& r = j.result;
      md << "| " << j.id << " | " << format_seconds(r["sim_time_s"].get<double>()) << " | " << format_seconds(r["bound_time_s"].get<double>())
         << " | " << format_fixed(r["sim_time_s"].get<double>() / r["bound_time_s"].get<double>(), 3) << " | "
         << format_si(r["busbw"].get<double>(), "B/s", 1) << " |\n";
      out["items"].push_back({{"id", j.id}, {"sim", r["sim_time_s"]}, {"bound", r["bound_time_s"]},
                              {"ratio", r["sim_time_s"].get<double>() / r["bound_time_s"].get<double>()}});
    }
    md << "\n## Measured cases\n\n| case | simulated | measured | error |\n|---|---|---|---|\n";
    for (const auto& c : out["cases"]) {
      md << "| " << c["id"].get<std::string>() << " | " << format_fixed(c["sim"].get<double>(), 2) << " | "
         << format_fixed(c["reference"].get<double>(), 2) << " " << c["unit"].get<std::string>() << " | "
         << pct(c["error"].get<double>()) << " |\n";
    }
    md << "\n| category | mean absolute error |\n|---|---|\n";
    for (const auto& [cat, v] : out["mape"].items()) md << "| " << cat << " | " << pct(v.get<double>()) << " |\n";
    write_text(o->report, md.str());

    bool all_hold = true;
    std::ostream& os = human_out(o->json);
    TextTable t({"invariant", "holds"});
    for (const auto& v : inv) {
      t.add_row({v.name, v.holds ? "yes" : "NO: " + v.detail});
      all_hold = all_hold && v.holds;
    }
    t.print(os);
    os << "\nmeasured cases, mean absolute error:";
    for (const auto& [cat, v] : out["mape"].items()) os << " " << cat << " " << pct(v.get<double>());
    os << "\nreport written to " << o->report << "\n";
    if (!o->json.empty()) write_json(o->json, out);
    if (!all_hold) throw CLI::RuntimeError(1);
  });
}

}  // namespace roofsim
