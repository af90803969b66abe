// `roofsim sweep FILE`: a design-space sweep file run against a results store. Finished points
// are committed one by one, so the command may be killed and re-run at any time; shards
// (--shard I/N) split the points between machines and --merge gathers their stores.
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/parse.hpp"
#include "sweep/design_sweep.hpp"
#include "experiment/results.hpp"
#include "experiment/slurm_jobs.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "sim/progress_line.hpp"

namespace roofsim {

namespace {

struct SweepFileOptions {
  std::string store;
  int jobs = 1;
  std::string shard;
  std::vector<std::string> merge;
  std::string export_csv, export_json;
  bool plan = false;
  bool quiet = false;
  // Slurm: the shards as a job array and a merge job.
  std::string slurm;
  bool submit = false;
  int array_size = 4;
  std::string partition;
  std::string time_limit = "01:00:00";
  int cpus_per_task = 1;
  std::set<std::string> given;  // Slurm flags given, to refuse them without --slurm
};

std::string count(std::size_t n, const std::string& what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

void export_table(const SweepTable& t, const SweepFileOptions& o, const std::string& file, std::ostream& os) {
  if (!o.export_csv.empty()) {
    nlohmann::json rows = t.rows;
    write_text(o.export_csv, records_csv(rows, t.columns));
    if (o.export_csv != "-") os << "wrote " << o.export_csv << " (" << count(t.rows.size(), "point") << ")\n";
  }
  if (!o.export_json.empty()) {
    write_json(o.export_json, versioned({{"sweep", file}, {"roofsim_version", roofsim_build_version()}, {"columns", t.columns},
                                         {"missing", t.missing}, {"points", t.rows}}));
    if (o.export_json != "-") os << "wrote " << o.export_json << " (" << count(t.rows.size(), "point") << ")\n";
  }
  if (t.missing > 0 && (!o.export_csv.empty() || !o.export_json.empty())) {
    os << count(t.missing, "point") << " of the sweep not in the store yet (run the sweep, or merge its shards)\n";
  }
}

// The path of this program, for job scripts that run it on other nodes.
std::string this_program() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw InputError("--slurm: cannot tell where this roofsim executable is (" + ec.message() + ")");
  return self.string();
}

void write_slurm(const std::string& file, const ExpandedSweep& points, const SweepFileOptions& o, std::ostream& os) {
  SlurmOptions so;
  so.dir = o.slurm;
  so.roofsim = this_program();
  so.sweep_file = std::filesystem::absolute(file).lexically_normal().string();
  // More tasks than points would start tasks with nothing to do.
  so.array_size = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(o.array_size), std::max<std::size_t>(1, points.points.size())));
  so.partition = o.partition;
  so.time_limit = o.time_limit;
  so.cpus_per_task = o.cpus_per_task;
  const SlurmJobs jobs = o.submit ? submit_slurm_jobs(so) : write_slurm_jobs(so);
  os << "array of " << so.array_size << " tasks (" << count(points.points.size(), "point") << "): " << jobs.array_script << "\n"
     << "merge after it:  " << jobs.merge_script << "\n";
  if (so.array_size < o.array_size) os << "(--array-size " << o.array_size << " cut to the number of points)\n";
  if (o.submit) {
    os << "submitted: array job " << jobs.array_job << ", merge job " << jobs.merge_job << " (squeue -j " << jobs.array_job << ","
       << jobs.merge_job << ")\n"
       << "results: " << std::filesystem::path(jobs.merge_script).parent_path().string() << "/results.db and results.csv; a task that "
       << "failed is re-run by submitting again (finished points are kept)\n";
  } else {
    os << "submit: roofsim sweep " << file << " --slurm " << o.slurm << " --submit (or by hand: id=$(sbatch --parsable "
       << jobs.array_script << ") && sbatch --dependency=afterok:$id " << jobs.merge_script << ")\n";
  }
}

void run_sweep_file(const std::string& file, const SweepFileOptions& o) {
  check_output_path(o.export_csv, "--export-csv");
  check_output_path(o.export_json, "--export-json");
  std::ostream& os = human_out({{o.export_csv, "--export-csv"}, {o.export_json, "--export-json"}});
  const auto [shard, shards] = o.shard.empty() ? std::pair{0, 1} : parse_shard(o.shard, "--shard");
  if (!o.merge.empty() && !o.shard.empty()) throw InputError("--merge gathers shards' stores; it runs nothing, so it takes no --shard");
  const SweepFile f = load_sweep_file(file);
  const ExpandedSweep points = expand_sweep(f);
  const std::string store_path = o.store.empty() ? default_sweep_store(file) : o.store;
  if (!o.slurm.empty()) {
    if (!o.merge.empty() || !o.shard.empty() || !o.store.empty() || o.plan) {
      throw InputError("--slurm writes jobs that shard, store and merge by themselves: it takes no --merge, --shard, --store or --plan");
    }
    write_slurm(file, points, o, os);
    return;
  }
  for (const char* flag : {"--submit", "--array-size", "--partition", "--time-limit", "--cpus-per-task"}) {
    if (o.given.count(flag)) throw InputError(std::string(flag) + " goes with --slurm DIR");
  }
  if (!o.merge.empty()) {
    for (const std::string& m : o.merge) {
      std::error_code ec;
      if (std::filesystem::equivalent(m, store_path, ec)) {
        throw InputError("--merge " + m + " is the store it would merge into (" + store_path + "): name the shards' stores, each other than --store");
      }
    }
    SweepStore store(store_path, o.store.empty() ? "the store" : "--store");
    for (const std::string& m : o.merge) {
      const std::size_t added = store.merge_from(m);
      os << "merged " << m << ": " << count(added, "new point") << "\n";
    }
    const SweepTable t = sweep_table(f, points, store);
    os << store_path << ": " << t.rows.size() << " of " << count(points.points.size(), "point") << " of " << file << "\n";
    export_table(t, o, file, os);
    return;
  }
  SweepStore store(store_path, o.store.empty() ? "the store" : "--store");
  os << file << ": " << count(points.points.size(), "point")
     << (points.skipped ? " (" + std::to_string(points.skipped) + " more skipped by constraints)" : std::string())
     << (shards > 1 ? ", shard " + std::to_string(shard) + "/" + std::to_string(shards) : std::string()) << "; store " << store_path
     << "\n";
  if (o.plan) {
    const SweepTable t = sweep_table(f, points, store);
    os << count(points.points.size() - t.missing, "point") << " stored, " << t.missing << " to run\n";
    return;
  }
  ProgressLine line("sweep", "points");
  RunControl control = o.quiet ? RunControl{} : line.control();
  const DesignSweepReport r = run_design_sweep(f, points, store, DesignSweepOptions{o.jobs, shard, shards}, control);
  line.finish();
  os << count(r.reused, "point") << " already stored; ran " << count(r.ran, "point");
  if (r.ran > 0) {
    os << " in " << format_fixed(r.wall_s, 1) << " s (" << format_fixed(static_cast<double>(r.ran) / std::max(r.wall_s, 1e-9), 2)
       << " points/s on " << count(static_cast<std::size_t>(std::max(1, o.jobs)), "worker") << ")";
  }
  os << (r.refused ? "; " + std::to_string(r.refused) + " refused by the simulator (stored with the reason)" : std::string())
     << (r.shared ? "; " + count(r.shared, "point") + " left to another sweep writing this store" : std::string()) << "\n";
  if (!o.export_csv.empty() || !o.export_json.empty()) export_table(sweep_table(f, points, store), o, file, os);
}

}  // namespace

std::function<void()> add_sweep_file_options(CLI::App* sw, const std::string& file) {
  auto o = std::make_shared<SweepFileOptions>();
  const std::string group = "Sweep files (roofsim sweep FILE; docs/sweeps.md)";
  sw->add_option("--store", o->store, "SQLite results store (default: FILE with .db for .toml); finished points are "
                                      "kept there and not run again")->group(group);
  sw->add_option("-j,--jobs", o->jobs, "Worker processes (default 1)")->check(whole_number_between(1, 1024))->group(group);
  sw->add_option("--shard", o->shard, "Run only the points whose index % N == I (I/N, e.g. 0/4)")->group(group);
  sw->add_option("--merge", o->merge, "Merge these stores (shards of the sweep) into --store; runs nothing")->group(group);
  sw->add_option("--export-csv", o->export_csv, "Write the stored points of the sweep, in its order, as CSV ('-' = standard output)")
      ->group(group);
  sw->add_option("--export-json", o->export_json, "The same as JSON, with wall times")->group(group);
  sw->add_flag("--plan", o->plan, "Say how many points the file has and how many are stored; run nothing")->group(group);
  sw->add_flag("-q,--quiet", o->quiet, "No progress lines")->group(group);
  const std::string slurm = "Slurm (roofsim sweep FILE --slurm DIR; docs/slurm.md)";
  sw->add_option("--slurm", o->slurm, "Write a Slurm job array (one task per shard, each with its own store in DIR) and a "
                                      "merge job into DIR, on a filesystem the nodes share")->group(slurm);
  sw->add_flag("--submit", o->submit, "Submit them with sbatch (the merge runs after every task succeeded); submitting "
                                      "again re-runs what failed, finished points kept")->group(slurm);
  sw->add_option("--array-size", o->array_size, "Tasks in the array (default 4)")->group(slurm);
  sw->add_option("--partition", o->partition, "Slurm partition (default: the cluster's)")->group(slurm);
  sw->add_option("--time-limit", o->time_limit, "Time limit per task, as sbatch --time takes it (default 01:00:00)")->group(slurm);
  sw->add_option("--cpus-per-task", o->cpus_per_task, "CPUs per task; each task runs that many workers (default 1)")->group(slurm);
  return [o, sw, &file] {
    for (const char* flag : {"--submit", "--array-size", "--partition", "--time-limit", "--cpus-per-task"}) {
      if (sw->get_option(flag)->count() > 0) o->given.insert(flag);
    }
    run_sweep_file(file, *o);
  };
}

}  // namespace roofsim
