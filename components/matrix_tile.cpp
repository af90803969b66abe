#include "components/matrix_tile.hpp"

#include <algorithm>

namespace roofsim {

namespace {
std::int64_t round_up(std::int64_t v, std::int64_t g) { return (v + g - 1) / g * g; }
std::int64_t ceil_div(std::int64_t v, std::int64_t g) { return (v + g - 1) / g; }
}  // namespace

Dataflow matrix_dataflow(const MatrixSpec& spec) {
  // Asked for every tile's cycles: a GPU (no dataflow named) answers without comparing strings.
  if (spec.dataflow.empty()) return spec.weight_stationary ? Dataflow::weight_stationary : Dataflow::none;
  if (spec.dataflow == "weight_stationary") {
    return Dataflow::weight_stationary;
  }
  if (spec.dataflow == "output_stationary") return Dataflow::output_stationary;
  if (spec.dataflow == "input_stationary") return Dataflow::input_stationary;
  return Dataflow::none;
}

SystolicFolds systolic_folds(const MatrixSpec& spec, const TileShape& t) {
  // The array: granule_k rows (the reduction of a weight-stationary fold) by granule_n columns.
  const std::int64_t rows = spec.granule_k, cols = spec.granule_n;
  SystolicFolds f;
  f.fill_drain = static_cast<double>(rows + cols - 2);
  switch (matrix_dataflow(spec)) {
    case Dataflow::weight_stationary:  // K over the rows, N over the columns, the rows of A stream
      f.folds = ceil_div(t.k, rows) * ceil_div(t.n, cols);
      f.streamed = round_up(t.m, spec.granule_m);
      f.stationary_load = spec.weight_load_cycles;
      break;
    case Dataflow::output_stationary:  // M over the rows, N over the columns, K streams
      f.folds = ceil_div(t.m, rows) * ceil_div(t.n, cols);
      f.streamed = t.k;
      break;
    case Dataflow::input_stationary:  // K over the rows, M over the columns, the columns of B stream
      f.folds = ceil_div(t.k, rows) * ceil_div(t.m, cols);
      f.streamed = t.n;
      f.stationary_load = spec.weight_load_cycles;
      break;
    case Dataflow::none:
      break;
  }
  return f;
}

double matrix_tile_cycles(const MatrixSpec& spec, const TileShape& t, DType compute) {
  return matrix_tile_cycles(spec, t, compute, spec.granule_m);
}

double matrix_tile_cycles(const MatrixSpec& spec, const TileShape& t, DType compute, std::int64_t granule_m) {
  auto eff = spec.dtype_efficiency.find(compute);
  const double rate = spec.macs_per_clock * spec.dtype_rate.at(compute) *
                      (eff == spec.dtype_efficiency.end() ? 1.0 : eff->second);
  if (matrix_dataflow(spec) == Dataflow::none) {
    const double m = static_cast<double>(round_up(t.m, granule_m));
    const double n = static_cast<double>(round_up(t.n, spec.granule_n));
    const double k = static_cast<double>(round_up(t.k, spec.granule_k));
    return m * n * k / rate;
  }
  const SystolicFolds f = systolic_folds(spec, t);
  // A streamed row feeds the whole array: rows x columns MACs, at the dtype's rate.
  const double stream = static_cast<double>(f.streamed) * static_cast<double>(spec.granule_n * spec.granule_k) / rate;
  const double folds = static_cast<double>(f.folds);
  // Double-buffered: the next fold's load hides behind this fold's stream, folds follow each
  // other without a gap, and the job's fill and drain is its latency (matrix_job_latency_cycles).
  if (spec.weight_load_overlap) return folds * std::max(stream, f.stationary_load);
  // Not overlapped: load, stream, and let the last row's partial sums drain before the next fold.
  return folds * (f.stationary_load + stream + f.fill_drain);
}

std::int64_t tile_granule_m(const MatrixSpec& spec, bool weight_only_grouped) {
  if (!weight_only_grouped || matrix_dataflow(spec) != Dataflow::none || spec.weight_only_moe_min_tile_rows <= 0) return spec.granule_m;
  return std::min(spec.granule_m, static_cast<std::int64_t>(spec.weight_only_moe_min_tile_rows));
}

double matrix_job_latency_cycles(const MatrixSpec& spec) {
  if (matrix_dataflow(spec) != Dataflow::none && !spec.weight_load_overlap) return 0;
  return spec.pipeline_latency_cycles;
}

}  // namespace roofsim
