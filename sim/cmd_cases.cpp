// `roofsim cases`: the published measurements roofsim reproduces, one simulation per case.
#include <cmath>
#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "core/format.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "experiment/public_cases.hpp"
#include "experiment/results.hpp"

namespace roofsim {

namespace {
struct CasesOptions {
  std::string id, json;
  double tolerance = 0.15;
};
}  // namespace

void add_cases_command(CLI::App& app) {
  CLI::App* cases = app.add_subcommand("cases", "Published measurements (validation/public-cases.csv) that roofsim reproduces");
  cases->require_subcommand(1);
  CLI::App* list = cases->add_subcommand("list", "List the cases with their settings and reference values");
  list->callback([] {
    TextTable t({"id", "hardware", "model", "batch", "prompt", "gen", "metric", "reference"});
    for (const auto& c : load_public_cases()) {
      const Experiment& e = c.experiment;
      t.add_row({c.id, e.hw, e.model, std::to_string(e.batch), std::to_string(e.prompt), std::to_string(e.generate),
                 c.metric, format_fixed(c.reference, 1) + " " + c.unit});
    }
    t.print(std::cout);
  });
  auto o = std::make_shared<CasesOptions>();
  CLI::App* run = cases->add_subcommand("run", "Simulate one case; exit 1 if its error exceeds the tolerance");
  run->add_option("ID", o->id, "Case id (see 'roofsim cases list')")->required();
  run->add_option("--tolerance", o->tolerance, "Largest relative error accepted (default 0.15)")->check(positive_number());
  add_json_option(run, o->json);
  run->callback([o] {
    if (o->tolerance > 10) throw InputError("--tolerance " + format_general(o->tolerance) + ": at most 10 (an error of 1000%)");
    check_output_path(o->json, "--json");
    const std::vector<PublicCase> all = load_public_cases();
    const PublicCase& c = find_public_case(all, o->id);
    ExperimentResult r = run_experiment(c.experiment, RunControl{});
    const double sim = case_metric(c, r);
    const double error = sim / c.reference - 1;
    std::ostream& os = human_out(o->json);
    os << c.id << ": simulated " << format_fixed(sim, 2) << ", measured " << format_fixed(c.reference, 2) << " " << c.unit
       << ", error " << format_fixed(100 * error, 1) << "% (tolerance " << format_general(100 * o->tolerance) << "%)\n";
    if (!o->json.empty()) write_json(o->json, case_result_json(c, r));
    if (std::fabs(error) > o->tolerance) {
      // Exit 1 is a failed check, not a refusal; say which, in the flag's terms (an error that
      // rounds to 0.0% above can still exceed a tiny tolerance).
      std::cerr << "roofsim cases run: " << c.id << ": error " << format_general(100 * error) << "% beyond --tolerance "
                << format_general(o->tolerance) << "\n";
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace roofsim
