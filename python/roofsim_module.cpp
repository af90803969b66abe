// The Python module `roofsim`: the library's experiments as functions that take keyword
// arguments and return plain dicts and lists (the result schema of docs/schema.md, which
// pandas.DataFrame takes as they are). Hardware and models are objects that can be edited
// before a run. Every call runs in a fresh SystemC kernel, so any number run in one process.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "components/plugins.hpp"
#include "core/error.hpp"
#include "core/presets.hpp"
#include "core/parse.hpp"
#include "experiment/collective.hpp"
#include "experiment/collective_settings.hpp"
#include "sweep/design_sweep.hpp"
#include "sweep/settings_catalog.hpp"
#include "experiment/hardware_edit.hpp"
#include "experiment/hardware_json.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/graph_drawing.hpp"
#include "experiment/inference.hpp"
#include "experiment/public_cases.hpp"
#include "experiment/results.hpp"
#include "experiment/single_op.hpp"
#include "experiment/validation_suite.hpp"
#include "experiment/gap_explain.hpp"
#include "experiment/whatif.hpp"
#include "serving/report.hpp"
#include "serving/serving.hpp"
#include "serving/serving_settings.hpp"
#include "python/module_docs.hpp"
#include "workloads/model.hpp"
#include "workloads/model_catalog.hpp"
#include "workloads/transformer.hpp"
#include "components/fabric.hpp"
#include "validation/workload_bounds.hpp"

namespace py = pybind11;
using namespace roofsim;
using namespace roofsim::python_docs;

namespace {

py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::string: return py::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const auto& v : j) l.append(to_python(v));
      return std::move(l);
    }
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (const auto& [k, v] : j.items()) d[py::str(k)] = to_python(v);
      return std::move(d);
    }
    default: return py::none();
  }
}

DType dtype_arg(const std::string& name, const std::string& value) {
  DType t;
  if (!parse_dtype(value, t)) throw InputError(name + "='" + value + "': unknown dtype (expected one of " + dtype_list() + ")");
  return t;
}

// A keyword argument as the C++ type it must be; anything else is the caller's error, named.
template <typename T>
T arg(const std::string& key, const py::handle& value, const char* expected) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw InputError(key + "=" + py::repr(value).cast<std::string>() + ": expected " + expected);
  }
}
std::int64_t integer_arg(const std::string& key, const py::handle& value) { return arg<std::int64_t>(key, value, "an integer"); }
std::string text_arg(const std::string& key, const py::handle& value) { return arg<std::string>(key, value, "a string"); }

// A keyword's value as the JSON settings take (bool before int: Python's True is an int too;
// a list or tuple of those for per-position values).
nlohmann::json json_value(const std::string& key, const py::handle& value) {
  if (value.is_none()) return nullptr;  // the setting's default, as a result's settings say it
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) return integer_arg(key, value);
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    nlohmann::json out = nlohmann::json::array();
    for (const py::handle& v : value) out.push_back(json_value(key, v));
    return out;
  }
  throw InputError(key + "=" + py::repr(value).cast<std::string>() + ": expected a number, a string or True/False");
}

// A hardware description that Python code may edit: get and set numbers by key path.
struct Hardware {
  HardwareDocument doc;
};

HardwareSpec hardware_arg(const py::object& hw) {
  if (py::isinstance<Hardware>(hw)) return hw.cast<const Hardware&>().doc.spec();
  return load_hardware(arg<std::string>("hw", hw, "a preset name, a .toml path or a roofsim.Hardware"));
}

// Keyword arguments (or a dict of them) as a settings object (None: the setting's default).
nlohmann::json settings_of(const py::dict& kw) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key_obj, value] : kw) {
    const std::string key = key_obj.cast<std::string>();
    out[key] = json_value(key, value);
  }
  return out;
}

// The experiment from settings named as `roofsim run`'s flags (dashes as underscores).
Experiment experiment_from(const py::object& hw, const py::object& model, const nlohmann::json& settings) {
  Experiment e;
  if (py::isinstance<Hardware>(hw)) {
    e.hardware = hardware_arg(hw);
    e.hw = e.hardware->name;
  } else {
    e.hw = arg<std::string>("hw", hw, "a preset name, a .toml path or a roofsim.Hardware");
  }
  if (py::isinstance<ModelConfig>(model)) {
    e.model_config = model.cast<ModelConfig>();
    check_model(*e.model_config, "model");
    e.model = e.model_config->name;
  } else {
    e.model = arg<std::string>("model", model, "a preset name, a path or a roofsim.Model");
  }
  for (const auto& [key, value] : settings.items()) {
    if (!is_experiment_setting(key)) throw InputError("unknown argument '" + key + "' (see help(roofsim.run))");
  }
  set_experiment_settings(e, settings);  // in the table's order: a stack before the kernels given
  return e;
}

Experiment experiment_from(const py::object& hw, const py::object& model, const py::kwargs& kw) {
  return experiment_from(hw, model, settings_of(kw));
}

RunControl control_from(const py::object& progress) {
  RunControl c;
  if (!progress.is_none()) {
    c.progress = [progress](std::size_t done, std::size_t total, const std::string& what) { progress(done, total, what); };
  }
  // Ctrl-C in Python stops the work between units.
  c.cancelled = [] { return PyErr_CheckSignals() != 0; };
  return c;
}

// serve(): the serving keywords onto a setup; the rest are the machine's, as for run().
ServingSetup serving_setup_from(const py::object& hw, const py::object& model, const py::kwargs& kw) {
  std::set<std::string> machine_given;
  ServingSettings settings;
  // Unknown keys go to the machine's part: experiment_from names them.
  const nlohmann::json machine = set_serving_part(settings, settings_of(kw), machine_given);
  return settings.finish(experiment_from(hw, model, machine), "roofsim.serve", machine_given);
}


}  // namespace

// libsystemc.so refers to sc_main (its own main() calls it); a Python process never runs that
// main, but the dynamic loader must resolve the symbol, so the module provides one.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char*[]) { return 0; }

PYBIND11_MODULE(roofsim, m) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  m.doc() = "roofsim: transformer inference simulated on hardware models where the roofline emerges";
  m.attr("schema_version") = kSchemaVersion;
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<Cancelled>(m, "Cancelled", PyExc_KeyboardInterrupt);
  // Unit libraries the environment names, as the CLI and its workers load them.
  load_plugins_from_environment();

  py::class_<Hardware>(m, "Hardware", "A hardware description (its TOML document), editable by key path before a run")
      .def(py::init([](const std::string& name) { return Hardware{HardwareDocument::load(name)}; }), py::arg("name"))
      .def("__getitem__", [](const Hardware& h, const std::string& key) { return h.doc.get(key); })
      .def("__setitem__", [](Hardware& h, const std::string& key, double v) { h.doc.set(key, v); })
      .def("scale", [](Hardware& h, const std::string& key, double f) {
        for (const std::string& path : hardware_key_paths(key)) h.doc.scale(path, f);
      }, py::arg("key"), py::arg("factor"), "Multiply a number (or a friendly knob: compute, hbm.bandwidth, links.bandwidth)")
      .def("keys", [](const Hardware& h) { return h.doc.numeric_keys(); })
      .def("summary", [](const Hardware& h) { return to_python(hardware_json(h.doc.spec())); },
           "Peaks, bandwidth, ridge per dtype and every parameter (checked as a file would be)")
      .def("toml", [](const Hardware& h) { return h.doc.toml_text(); })
      .def_property_readonly("name", [](const Hardware& h) { return h.doc.name(); })
      .def_property_readonly("edits", [](const Hardware& h) { return h.doc.edits(); })
      .def("__repr__", [](const Hardware& h) {
        return "roofsim.Hardware('" + h.doc.name() + "'" + (h.doc.edits().empty() ? "" : ", edited: " + h.doc.edits()) + ")";
      });
  m.def("hardware", [](const std::string& name) { return Hardware{HardwareDocument::load(name)}; }, py::arg("name"),
        "Load a hardware preset or .toml as an editable Hardware object");

  py::class_<ModelConfig>(m, "Model", "A model's dimensions, editable before a run")
      .def_readwrite("name", &ModelConfig::name)
      .def_readwrite("hidden", &ModelConfig::hidden)
      .def_readwrite("layers", &ModelConfig::layers)
      .def_readwrite("heads", &ModelConfig::heads)
      .def_readwrite("kv_heads", &ModelConfig::kv_heads)
      .def_readwrite("head_dim", &ModelConfig::head_dim)
      .def_readwrite("intermediate", &ModelConfig::intermediate)
      .def_readwrite("vocab", &ModelConfig::vocab)
      .def_readwrite("gated_mlp", &ModelConfig::gated_mlp)
      .def_readwrite("tied_embeddings", &ModelConfig::tied_embeddings)
      .def_readwrite("experts", &ModelConfig::experts)
      .def_readwrite("experts_per_token", &ModelConfig::experts_per_token)
      .def_readonly("hub_id", &ModelConfig::hub_id)
      .def_readonly("architecture", &ModelConfig::architecture)
      .def_readwrite("max_context", &ModelConfig::max_context)
      .def_readwrite("moe_intermediate", &ModelConfig::moe_intermediate)
      .def_readwrite("shared_experts", &ModelConfig::shared_experts)
      .def_readwrite("shared_intermediate", &ModelConfig::shared_intermediate)
      .def_readwrite("dense_layers", &ModelConfig::dense_layers)
      .def_readwrite("parallel_block", &ModelConfig::parallel_block)
      .def_readonly("sliding_window", &ModelConfig::sliding_window)  // which layers slide: fields()
      .def("fields", [](const ModelConfig& mc) { return to_python(model_fields_json(mc)); },
           "Every field of the model (latent attention, sliding layers, biases, ...) and its derived sizes, as "
           "`roofsim models show --json`")
      .def_property_readonly("total_params", &ModelConfig::total_params)
      .def_property_readonly("active_params_per_token", &ModelConfig::active_params_per_token)
      .def("__repr__", [](const ModelConfig& c) { return "roofsim.Model('" + c.name + "')"; });
  m.def("model", &load_model, py::arg("name"), "Load a model preset, model .toml or Hugging Face config.json as a Model");

  m.def("load_plugin", [](const std::string& path) {
    load_plugin_and_pass_on(path, "load_plugin");
    // os.environ is Python's copy of the environment: keep it the one the processes it starts get.
    py::module_::import("os").attr("environ")["ROOFSIM_PLUGINS"] = std::getenv("ROOFSIM_PLUGINS");
  }, py::arg("path"),
        "Load a unit library (a shared object that registers implementations by name, such as a memory model a hardware "
        "file's [memory] model names: docs/extending.md), as `roofsim --plugin FILE.so` does; loading one twice does "
        "nothing. Also added to ROOFSIM_PLUGINS for the processes sweeps start. Load libraries before running "
        "simulations on other threads.");

  m.def("presets", [](const std::string& kind) {
    if (kind != "hardware" && kind != "models" && kind != "stacks") {
      throw InputError("presets('" + kind + "'): expected 'hardware', 'models' or 'stacks'");
    }
    return list_presets(kind);
  }, py::arg("kind") = "hardware", "Names of the hardware, model or software-stack presets");

  m.def("settings", [](const std::string& domain) { return to_python(settings_json(setting_domains(domain))); },
        py::arg("domain") = "",
        "Every setting as declared once (what `roofsim settings --json` writes): {'domains': {name: {'title', 'about', "
        "'settings': [{'name', 'flag', 'kind', 'unit', 'default', 'min', 'max', 'choices', 'help', 'aliases', 'commands'}]}}}; "
        "domain='run' for one table. The keyword arguments of run(), serve() and the rest are these settings' names.");

  m.def("models", [] {
    nlohmann::json rows = nlohmann::json::array();
    for (const CatalogEntry& e : model_catalog()) rows.push_back(catalog_row(e));
    return to_python(rows);
  }, "Every model preset and shipped Hugging Face config: the rows of `roofsim models list` (a list of dicts)");

  m.def("run", [](const py::object& hw, const py::object& model, const py::object& progress, const py::kwargs& kw) {
    const Experiment e = experiment_from(hw, model, kw);
    return to_python(to_json(run_experiment(e, control_from(progress))));
  }, py::arg("hw") = default_hw(), py::arg("model") = default_model(), py::arg("progress") = py::none(), run_doc());

  m.def("analyze", [](const py::object& hw, const py::object& model, const py::kwargs& kw) {
    return to_python(analysis_json(analyze_experiment(experiment_from(hw, model, kw))));
  }, py::arg("hw") = default_hw(), py::arg("model") = default_model(), analyze_doc());

  m.def("graph", [](const py::object& hw, const py::object& model, int layers, const py::kwargs& kw) {
    const ExperimentResult r = analyze_experiment(experiment_from(hw, model, kw));
    try {
      return run_graph_dot(r, layers);
    } catch (const InputError& e) {
      throw renamed_setting(e, "graph_layers", "layers");  // this function's keyword
    }
  }, py::arg("hw") = default_hw(), py::arg("model") = default_model(), py::arg("layers") = 1,
     "The operator graph of the run's prefill and first decode step as Graphviz DOT text (what `roofsim run --graph x.dot` "
     "writes, from the analysis: each op's shape, FLOPs, bytes, intensity and bound, filled by the roof that binds it); the "
     "first `layers` decoder layers op by op, the rest one box. Settings as for run(). Draw it with Graphviz: "
     "`dot -Tsvg`.");

  m.def("explain", [](const py::object& hw, const py::object& model, const py::object& progress, const py::kwargs& kw) {
    return to_python(to_json(explain_gaps(experiment_from(hw, model, kw), control_from(progress))));
  }, py::arg("hw") = default_hw(), py::arg("model") = default_model(), py::arg("progress") = py::none(),
     "Why the run is slower than its roofline bound: the run's settings (as for run()), simulated on the chip and again "
     "with one cost taken away after another down to the ideal chip; each cost's share of the gap per phase and op. "
     "As `roofsim explain --json` (docs/schema.md).");

  m.def("serve", [](const py::object& hw, const py::object& model, const py::object& progress, const py::kwargs& kw) {
    const ServingSetup s = serving_setup_from(hw, model, kw);
    const ServingResult r = run_serving(s, control_from(progress));
    nlohmann::json j = serving_json(r);
    j["requests"] = serving_request_records(r);
    j["iteration_records"] = serving_iteration_records(r);
    return to_python(j);
  }, py::arg("hw") = default_hw(), py::arg("model") = default_model(), py::arg("progress") = py::none(), serve_doc());

  m.def("op", [](const py::object& gemm, std::int64_t elementwise, const py::object& reduce, const py::object& hw,
                 const std::string& dtype, bool ideal, bool fine, bool l2_resident) {
    const DType t = dtype_arg("dtype", dtype);
    const int given = !gemm.is_none() + (elementwise > 0) + !reduce.is_none();
    if (given != 1) throw InputError("give exactly one of gemm=(M, N, K) or (B, M, N, K), elementwise=N, reduce=(ROWS, COLS)");
    OpSpec spec;
    if (!gemm.is_none()) {
      const auto d = arg<std::vector<std::int64_t>>("gemm", gemm, "(M, N, K) or (B, M, N, K) of whole numbers");
      if (d.size() != 3 && d.size() != 4) throw InputError("gemm: expected (M, N, K) or (B, M, N, K)");
      for (std::int64_t v : d) {
        if (v <= 0) throw InputError("gemm: sizes must be positive");
      }
      const GemmShape g = d.size() == 3 ? GemmShape{1, d[0], d[1], d[2], t, t, t} : GemmShape{d[0], d[1], d[2], d[3], t, t, t};
      std::string label;
      for (std::int64_t v : d) label += (label.empty() ? "" : ",") + std::to_string(v);
      spec = gemm_op(g, label);
    } else if (elementwise > 0) {
      spec = elementwise_add_op(elementwise, t);
    } else {
      const auto d = arg<std::vector<std::int64_t>>("reduce", reduce, "(ROWS, COLS) of whole numbers");
      if (d.size() != 2 || d[0] <= 0 || d[1] <= 0) throw InputError("reduce: expected positive (ROWS, COLS)");
      spec = row_sum_op(d[0], d[1], t);
    }
    const HardwareSpec h = hardware_for_run(hardware_arg(hw), ideal);
    if (l2_resident) make_reads_resident(spec, h, "l2_resident");
    return to_python(single_op_json(run_ops(h, ideal, {spec}, fine ? Granularity::fine : Granularity::coarse)));
  }, py::arg("gemm") = py::none(), py::arg("elementwise") = 0, py::arg("reduce") = py::none(), py::arg("hw") = "h100_sxm5",
     py::arg("dtype") = "bf16", py::arg("ideal") = false, py::arg("fine") = false, py::arg("l2_resident") = false,
     "Simulate one op on one chip beside its roofline bound; returns the dict `roofsim op --json` writes");

  m.def("roofline_sweep", [](const py::object& hw, const std::string& dtype, int points, bool ideal) {
    const HardwareSpec h = hardware_for_run(hardware_arg(hw), ideal);
    return to_python(to_json(run_roofline_sweep(h, ideal, dtype_arg("dtype", dtype), points)));
  }, py::arg("hw") = "h100_sxm5", py::arg("dtype") = "bf16", py::arg("points") = 31, py::arg("ideal") = false,
     "GEMMs from about 1 to thousands of FLOP/B and the emergent ridge (as `roofsim roofline --sweep --json`)");

  m.def("collective", [](const py::object& hw, const py::kwargs& kw) {
    // The keywords are the collective settings (experiment/collective_settings.hpp), checked
    // and applied as `roofsim collective` applies its flags.
    CollectiveExperiment x;
    nlohmann::json settings = nlohmann::json::object();
    const bool hardware_object = py::isinstance<Hardware>(hw);
    if (hardware_object) {
      x.hw = hardware_arg(hw);
    } else {
      settings["hw"] = arg<std::string>("hw", hw, "a preset name, a .toml path or a roofsim.Hardware");
    }
    for (const auto& [key_obj, value] : kw) {
      const std::string key = key_obj.cast<std::string>();
      if (find_collective_setting(key) == nullptr) throw InputError("unknown argument '" + key + "' (see help(roofsim.collective))");
      settings[key] = json_value(key, value);
    }
    set_collective_settings(x, settings, hardware_object);
    return to_python(to_json(run_collective_experiment(x)));
  }, py::arg("hw") = find_collective_setting("hw")->spec.default_text, collective_doc());

  m.def("sweep", [](const py::dict& grid, const py::object& hw, const py::object& model, const py::object& progress,
                    const py::kwargs& kw) {
    if (grid.size() == 0) throw InputError("sweep: grid is empty; give {key: [values], ...}");
    std::vector<SweepAxis> axes;
    for (const auto& [k, v] : grid) {
      const std::string key = text_arg("grid key", k);
      SweepAxis a{key, arg<std::vector<double>>(key, v, "a list of numbers")};
      if (a.values.empty()) throw InputError("sweep: no values for '" + a.key + "'");
      axes.push_back(a);
    }
    const HardwareDocument doc = py::isinstance<Hardware>(hw) ? hw.cast<const Hardware&>().doc : HardwareDocument::load(arg<std::string>("hw", hw, "a preset name, a .toml path or a roofsim.Hardware"));
    const Experiment base = experiment_from(py::str(doc.name()), model, kw);
    const SweepResult r = run_sweep(base, doc, axes, 0, 1, control_from(progress));
    return to_python(to_json(r)["points"]);
  }, py::arg("grid"), py::arg("hw") = default_hw(), py::arg("model") = default_model(), py::arg("progress") = py::none(),
     "Run every combination of the grid ({'batch': [1, 8], 'hbm.bandwidth_gb_per_s': [3350, 6700]}, experiment keys "
     "and hardware keys) in this process; other keyword arguments as for run(). Returns a list of point records; a "
     "point that cannot run has an 'error'. progress(done, total, what) is called after each point.");

  // Sweep files: the store is the result; both functions return its rows for pandas.
  auto store_path = [](const std::string& file, const py::object& store) {
    return store.is_none() ? default_sweep_store(file) : arg<std::string>("store", store, "a path");
  };
  m.def("sweep_file", [store_path](const std::string& file, const py::object& store, int jobs, const std::string& shard,
                                   const py::object& progress) {
    const SweepFile f = load_sweep_file(file);
    const ExpandedSweep points = expand_sweep(f);
    SweepStore s(store_path(file, store), "store");
    DesignSweepOptions o;
    o.jobs = jobs;
    if (!shard.empty()) std::tie(o.shard, o.shards) = parse_shard(shard, "shard");
    if (jobs < 1 || jobs > 1024) throw InputError("jobs=" + std::to_string(jobs) + ": expected 1 to 1024");
    run_design_sweep(f, points, s, o, control_from(progress));
    return to_python(sweep_table(f, points, s).rows);
  }, py::arg("file"), py::arg("store") = py::none(), py::arg("jobs") = 1, py::arg("shard") = "", py::arg("progress") = py::none(),
     "Run a sweep file (docs/sweeps.md) against its SQLite store (default: the file with .db), simulating only the points "
     "not stored yet, each committed as it finishes; jobs > 1 forks worker processes. Returns one dict per stored point "
     "of the file, in its order (pandas.DataFrame takes them).");
  m.def("read_sweep", [store_path](const std::string& file, const py::object& store) {
    const SweepFile f = load_sweep_file(file);
    const ExpandedSweep points = expand_sweep(f);
    const SweepStore s(store_path(file, store), "store");
    return to_python(sweep_table(f, points, s).rows);
  }, py::arg("file"), py::arg("store") = py::none(),
     "The stored points of a sweep file, as sweep_file() returns them, without running anything (points not stored yet "
     "are left out).");

  m.def("whatif", [](const py::dict& variants, const py::object& hw, const py::object& model, const py::kwargs& kw) {
    const Experiment base = experiment_from(hw, model, kw);
    std::vector<WhatifVariant> vs = {{"base", hardware_arg(hw), nlohmann::json::object()}};
    for (const auto& [k, v] : variants) {
      // A dict is run settings on the base hardware ({"fuse": "elementwise"}); else a chip.
      if (py::isinstance<py::dict>(v)) {
        vs.push_back({k.cast<std::string>(), vs[0].hw, settings_of(py::reinterpret_borrow<py::dict>(v))});
      } else {
        vs.push_back({k.cast<std::string>(), hardware_arg(py::reinterpret_borrow<py::object>(v)), nlohmann::json::object()});
      }
    }
    return to_python(to_json(run_whatif(base, vs, control_from(py::none()))));
  }, py::arg("variants"), py::arg("hw") = default_hw(), py::arg("model") = default_model(),
     "The experiment on the base hardware and on each variant ({name: Hardware or preset, or a dict of run settings "
     "on the base hardware such as {\"fuse\": \"elementwise\"}}); as `roofsim whatif --json`");

  m.def("cases", [] {
    py::list out;
    for (const PublicCase& c : load_public_cases()) {
      py::dict d;
      d["id"] = c.id;
      d["hw"] = c.experiment.hw;
      d["model"] = c.experiment.model;
      d["batch"] = c.experiment.batch;
      d["prompt"] = c.experiment.prompt;
      d["generate"] = c.experiment.generate;
      d["metric"] = c.metric;
      d["reference"] = c.reference;
      d["unit"] = c.unit;
      d["category"] = c.category;
      d["source"] = c.source;
      out.append(d);
    }
    return out;
  }, "The published measurements roofsim reproduces");

  m.def("case", [](const std::string& id) {
    const std::vector<PublicCase> all = load_public_cases();
    const PublicCase& c = find_public_case(all, id);
    return to_python(case_result_json(c, run_experiment(c.experiment, control_from(py::none()))));
  }, py::arg("id"), "Simulate one published case; as `roofsim cases run ID --json`");

  m.def("validate", [](bool quick, const std::string& cases, const py::object& progress) {
    return to_python(to_json(run_validation_suite(quick, cases, control_from(progress))));
  }, py::arg("quick") = true, py::arg("cases") = "", py::arg("progress") = py::none(),
     "The validation suite; as `roofsim validate --json`");
}
