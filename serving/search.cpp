// The deployment search: serving runs over layouts and concurrencies, and their Pareto front.
#include "serving/search.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "experiment/plot.hpp"
#include "experiment/results.hpp"
#include "workloads/model.hpp"
#include "workloads/transformer.hpp"

namespace roofsim {

namespace {

// A layout before it runs: colocated (tp, pp, ep, replicas) or disaggregated (P, tp_p, D, tp_d).
struct SearchLayout {
  bool disaggregated = false;
  std::int64_t tp = 0, pp = 1, ep = 1, replicas = 0;
  std::int64_t prefill_instances = 0, prefill_tp = 0, decode_instances = 0, decode_tp = 0;
  std::string name() const {
    if (!disaggregated) {
      return "tp" + std::to_string(tp) + (ep > 1 ? " ep" + std::to_string(ep) : "") + (pp > 1 ? " pp" + std::to_string(pp) : "") +
             " x" + std::to_string(replicas);
    }
    const std::string ranks = ep > 1 ? " ep" + std::to_string(ep) : "";
    return std::to_string(prefill_instances) + "P(tp" + std::to_string(prefill_tp) + ranks + ")+" + std::to_string(decode_instances) +
           "D(tp" + std::to_string(decode_tp) + ranks + ")";
  }
};

std::vector<SearchLayout> layouts(std::int64_t gpus, const std::vector<std::int64_t>& tps, const std::vector<std::int64_t>& pps,
                            const std::vector<std::int64_t>& eps, bool disaggregated) {
  std::vector<SearchLayout> out;
  for (std::int64_t pp : pps) {
    for (std::int64_t ep : eps) {
      for (std::int64_t tp : tps) {
        if (gpus % (tp * pp * ep) == 0) out.push_back({false, tp, pp, ep, gpus / (tp * pp * ep), 0, 0, 0, 0});
      }
    }
  }
  if (!disaggregated) return out;
  // Instances of tp x ep chips (the same EP degree on both sides).
  for (std::int64_t ep : eps) {
    for (std::int64_t tp_p : tps) {
      for (std::int64_t tp_d : tps) {
        const std::int64_t chips_p = tp_p * ep, chips_d = tp_d * ep;
        for (std::int64_t p = 1; p * chips_p < gpus; ++p) {
          const std::int64_t rest = gpus - p * chips_p;
          if (rest % chips_d == 0) out.push_back({true, 0, 1, ep, 0, p, tp_p, rest / chips_d, tp_d});
        }
      }
    }
  }
  return out;
}

std::vector<std::int64_t> sorted_unique(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

ServingSetup point_setup(const SearchSpec& spec, const SearchLayout& l, std::int64_t concurrency) {
  ServingSetup s = spec.base;
  s.disaggregation = DisaggregationConfig{};
  std::int64_t clients = concurrency;
  if (l.disaggregated) {
    s.machine.tp = l.decode_tp;
    s.disaggregation.enabled = true;
    s.disaggregation.prefill_instances = l.prefill_instances;
    s.disaggregation.prefill_tp = l.prefill_tp;
    s.disaggregation.decode_instances = l.decode_instances;
    s.disaggregation.decode_tp = l.decode_tp;
    s.machine.ep = l.ep;
    clients = concurrency * l.decode_instances;
  } else {
    s.machine.tp = l.tp;
    s.machine.pp = l.pp;
    s.machine.ep = l.ep;
  }
  s.workload.arrivals = Arrivals{};
  s.workload.arrivals.kind = Arrivals::Kind::closed_loop;
  s.workload.arrivals.concurrency = clients;
  s.workload.arrivals.ramp_s = spec.base.workload.arrivals.ramp_s;
  s.workload.requests = clients * spec.requests_per_client;
  return s;
}

}  // namespace

std::vector<std::int64_t> default_search_concurrencies() { return {1, 2, 4, 8, 16, 32, 64, 128, 256}; }

std::vector<std::int64_t> default_search_tps(const SearchSpec& spec) {
  const ModelConfig m = spec.base.machine.model_config ? *spec.base.machine.model_config : load_model(spec.base.machine.model);
  std::vector<std::int64_t> tps;
  for (std::int64_t tp = 1; tp <= spec.gpus; tp *= 2) {
    if (spec.gpus % tp != 0) break;
    try {
      check_tensor_parallel(m, tp);
      tps.push_back(tp);
    } catch (const InputError&) {
    }
  }
  return tps;
}

std::vector<std::size_t> pareto_front(const std::vector<SearchPoint>& points) {
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].ok() && points[i].meets_slo) candidates.push_back(i);
  }
  std::vector<std::size_t> front;
  for (std::size_t i : candidates) {
    const SearchPoint& a = points[i];
    const bool dominated = std::any_of(candidates.begin(), candidates.end(), [&](std::size_t j) {
      const SearchPoint& b = points[j];
      return b.tok_s_per_user >= a.tok_s_per_user && b.tok_s_per_gpu >= a.tok_s_per_gpu &&
             (b.tok_s_per_user > a.tok_s_per_user || b.tok_s_per_gpu > a.tok_s_per_gpu);
    });
    if (!dominated) front.push_back(i);
  }
  std::sort(front.begin(), front.end(), [&](std::size_t i, std::size_t j) {
    const SearchPoint &a = points[i], &b = points[j];
    if (a.tok_s_per_user != b.tok_s_per_user) return a.tok_s_per_user < b.tok_s_per_user;
    if (a.tok_s_per_gpu != b.tok_s_per_gpu) return a.tok_s_per_gpu > b.tok_s_per_gpu;
    return i < j;
  });
  return front;
}

const std::vector<std::string>& search_serving_settings() {
  static const std::vector<std::string> names = {"prompt", "output", "max_batch", "max_tokens", "slo_ttft_ms", "slo_tpot_ms"};
  return names;
}

std::vector<SearchPoint> run_search(const SearchSpec& spec, const RunControl& control) {
  if (spec.gpus < 1 || spec.gpus > kMaxChips) {
    throw InputError("${gpus} " + std::to_string(spec.gpus) + ": must be between 1 and " + std::to_string(kMaxChips));
  }
  if (spec.base.machine.pp != 1) throw InputError("${pp}: the search sets the pipeline stages of each layout itself (its list of stages to try)");
  if (spec.base.machine.ep != 1) throw InputError("${ep}: the search sets the expert-parallel ranks of each layout itself (its list of EP degrees to try)");
  if (spec.requests_per_client < 1 || spec.requests_per_client > 1000000) {
    throw InputError("${requests_per_client} " + std::to_string(spec.requests_per_client) + ": must be between 1 and 1000000");
  }
  const std::vector<std::int64_t> tps = sorted_unique(spec.tps.empty() ? default_search_tps(spec) : spec.tps);
  const std::vector<std::int64_t> concurrencies =
      sorted_unique(spec.concurrencies.empty() ? default_search_concurrencies() : spec.concurrencies);
  for (std::int64_t c : concurrencies) {
    if (c < 1 || c > (1 << 20)) throw InputError("${concurrency} " + std::to_string(c) + ": must be between 1 and 1048576");
  }
  const std::vector<std::int64_t> pps = sorted_unique(spec.pps.empty() ? std::vector<std::int64_t>{1} : spec.pps);
  for (std::int64_t pp : pps) {
    if (pp < 1 || pp > spec.gpus) {
      throw InputError("${pp} " + std::to_string(pp) + ": pipeline stages must number between 1 and ${gpus} " + std::to_string(spec.gpus));
    }
  }
  const std::vector<std::int64_t> eps = sorted_unique(spec.eps.empty() ? std::vector<std::int64_t>{1} : spec.eps);
  for (std::int64_t ep : eps) {
    if (ep < 1 || ep > spec.gpus) {
      throw InputError("${ep} " + std::to_string(ep) + ": expert-parallel ranks must number between 1 and ${gpus} " + std::to_string(spec.gpus));
    }
  }
  const std::vector<SearchLayout> all = layouts(spec.gpus, tps, pps, eps, spec.disaggregated);
  for (std::int64_t tp : tps) {
    if (tp < 1 || tp > spec.gpus) {
      throw InputError("${tp} " + std::to_string(tp) + ": a tensor-parallel group must have between 1 and ${gpus} " +
                       std::to_string(spec.gpus) + " chips");
    }
    const bool used = std::any_of(all.begin(), all.end(), [&](const SearchLayout& l) {
      return l.tp == tp || l.prefill_tp == tp || l.decode_tp == tp;
    });
    if (!used) {
      throw InputError("${tp} " + std::to_string(tp) + ": no layout of ${gpus} " + std::to_string(spec.gpus) +
                       " has tensor-parallel groups of " + std::to_string(tp) + " chips (it must divide the GPUs" +
                       (spec.disaggregated ? ", or fill them with another TP in a prefill/decode split)" : ")"));
    }
  }

  RunControl inner;  // a run's own progress is not reported; its cancellation is
  inner.cancelled = control.cancelled;
  std::vector<SearchPoint> points;
  const std::size_t total = all.size() * concurrencies.size();
  for (const SearchLayout& l : all) {
    for (std::int64_t c : concurrencies) {
      if (control.stop_requested()) throw Cancelled();
      SearchPoint p;
      p.layout = l.name();
      p.disaggregated = l.disaggregated;
      p.tp = l.tp;
      p.pp = l.disaggregated ? 0 : l.pp;
      p.ep = l.ep;
      p.replicas = l.replicas;
      p.prefill_instances = l.prefill_instances;
      p.prefill_tp = l.prefill_tp;
      p.decode_instances = l.decode_instances;
      p.decode_tp = l.decode_tp;
      p.concurrency = c;
      p.total_concurrency = l.disaggregated ? c * l.decode_instances : c * l.replicas;
      const ServingSetup s = point_setup(spec, l, c);
      p.requests = s.workload.requests;
      try {
        const ServingResult r = run_serving(s, inner);
        const ServingSummary& m = r.summary;
        p.tok_s = l.disaggregated ? m.output_tok_s : m.output_tok_s * static_cast<double>(l.replicas);
        p.tok_s_per_gpu = p.tok_s / static_cast<double>(spec.gpus);
        p.tok_s_per_user = m.tok_s_per_user;
        p.ttft_p90_s = m.ttft_s.p90;
        p.tpot_mean_s = m.tpot_s.mean;
        p.slo_attainment = m.slo_attainment;
        const bool slo_set = spec.base.slo_ttft_s > 0 || spec.base.slo_tpot_s > 0;
        p.meets_slo = !slo_set || m.slo_attainment >= 0.9;
      } catch (const InputError& e) {
        p.error = e.raw();
      }
      points.push_back(p);
      control.report(points.size(), total, p.layout + " at concurrency " + std::to_string(c));
    }
  }
  for (std::size_t i : pareto_front(points)) points[i].pareto = true;
  return points;
}

std::string search_csv(const std::vector<SearchPoint>& points, SettingNames names) {
  return records_csv(search_points_json(points, names),
                     {"layout", "disaggregated", "tp", "pp", "ep", "replicas", "prefill_instances", "prefill_tp", "decode_instances",
                      "decode_tp", "concurrency", "total_concurrency", "requests", "tok_s", "tok_s_per_gpu", "tok_s_per_user",
                      "ttft_p90_s", "tpot_mean_s", "slo_attainment", "meets_slo", "pareto", "error"});
}

nlohmann::json search_points_json(const std::vector<SearchPoint>& points, SettingNames names) {
  nlohmann::json out = nlohmann::json::array();
  for (const SearchPoint& p : points) {
    nlohmann::json j = {{"layout", p.layout}, {"disaggregated", p.disaggregated}, {"ep", p.ep}, {"concurrency", p.concurrency},
                        {"total_concurrency", p.total_concurrency}, {"requests", p.requests}};
    if (p.disaggregated) {
      j["prefill_instances"] = p.prefill_instances;
      j["prefill_tp"] = p.prefill_tp;
      j["decode_instances"] = p.decode_instances;
      j["decode_tp"] = p.decode_tp;
    } else {
      j["tp"] = p.tp;
      j["pp"] = p.pp;
      j["replicas"] = p.replicas;
    }
    if (p.ok()) {
      j["tok_s"] = p.tok_s;
      j["tok_s_per_gpu"] = p.tok_s_per_gpu;
      j["tok_s_per_user"] = p.tok_s_per_user;
      j["ttft_p90_s"] = p.ttft_p90_s;
      j["tpot_mean_s"] = p.tpot_mean_s;
      j["slo_attainment"] = p.slo_attainment;
      j["meets_slo"] = p.meets_slo;
      j["pareto"] = p.pareto;
    } else {
      j["error"] = render_setting_names(p.error, names);
    }
    out.push_back(j);
  }
  return out;
}

void write_search_plot(const std::string& path, const std::vector<std::string>& title, const std::vector<SearchPoint>& points) {
  const std::string terminal = plot_terminal(path, 1100, 750);
  // Layouts in the order they ran, each with its points.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const SearchPoint*>> by_layout;
  for (const SearchPoint& p : points) {
    if (!p.ok()) continue;
    if (!by_layout.count(p.layout)) order.push_back(p.layout);
    by_layout[p.layout].push_back(&p);
  }
  if (order.empty()) throw InputError("${plot} " + path + ": no point of the search ran, nothing to chart");
  const std::vector<std::size_t> front = pareto_front(points);
  const std::filesystem::path dir = plot_dir();
  const std::filesystem::path data = dir / "search.dat", script = dir / "search.gp";
  {
    std::ofstream d(data);
    d.imbue(std::locale::classic());
    d.precision(10);
    // Index i < layouts: a layout's points (x, y, meets the SLOs, concurrency); the last: the front.
    for (const std::string& name : order) {
      for (const SearchPoint* p : by_layout[name]) {
        d << p->tok_s_per_user << " " << p->tok_s_per_gpu << " " << (p->meets_slo ? 1 : 0) << " " << p->concurrency << "\n";
      }
      d << "\n\n";
    }
    for (std::size_t i : front) {
      d << points[i].tok_s_per_user << " " << points[i].tok_s_per_gpu << " 1 " << points[i].concurrency << "\n";
    }
    if (front.empty()) d << "NaN NaN 0 0\n";
  }
  const std::string file = gnuplot_quoted(data.string());
  const std::size_t front_index = order.size();
  {
    std::ofstream g = open_gnuplot_script(script, terminal, path);
    g << "set title " << gnuplot_lines(title) << "\n"
      << "set grid\n"
      << "set key outside right top\n"
      << "set xlabel 'output tokens/s per user (1 / mean TPOT)'\n"
      << "set ylabel 'output tokens/s per GPU'\n"
      << "set xrange [0:*]\nset yrange [0:*]\n"
      << "set offsets 0, graph 0.05, graph 0.05, 0\n"
      << "plot ";
    constexpr int kShapes[] = {7, 5, 9, 11, 13};  // filled circle, square, triangles, diamond
    for (std::size_t i = 0; i < order.size(); ++i) {
      const int colour = static_cast<int>(i % 8) + 1;
      // A thin line through the layout's concurrencies, filled points where they meet the SLOs.
      g << file << " index " << i << " using 1:2 with lines lw 1 lc " << colour << " dashtype 3 notitle, \\\n     "
        << file << " index " << i << " using 1:($3 > 0 ? $2 : 1/0) with points pt " << kShapes[(i / 8) % 5] << " ps 1.2 lc " << colour
        << " title " << gnuplot_quoted(order[i]) << ", \\\n     ";
    }
    const bool misses = std::any_of(points.begin(), points.end(), [](const SearchPoint& p) { return p.ok() && !p.meets_slo; });
    if (misses) {
      g << "for [i=0:" << front_index - 1 << "] " << file
        << " index i using 1:($3 > 0 ? 1/0 : $2) with points pt 6 ps 1.4 lc rgb 'grey50' title (i == 0 ? 'misses the SLOs' : ''), \\\n     ";
    }
    g << file << " index " << front_index << " using 1:2 with lines lw 2.5 lc rgb 'black' title 'Pareto front', \\\n"
      << "     " << file << " index " << front_index
      << " using 1:2:(sprintf('c%d', $4)) with labels offset char 0.8,0.8 left font ',9' notitle\n";
  }
  run_gnuplot(script, dir);
}

}  // namespace roofsim
