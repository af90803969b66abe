#pragma once
// How long a matrix array is busy with one tile: plain arithmetic on the array's structure.
// A TPU MXU and a GPU SM's tensor cores are two configurations of it: both do macs_per_clock
// multiply-adds per cycle on operands padded to their granule. A systolic array with a dataflow
// (weight-, output- or input-stationary) works in folds, as SCALE-Sim v2 maps a GEMM onto it:
// each fold holds one array-sized piece of the stationary operand (or of the output) and
// streams the other dimension through; a stationary operand is loaded first. Whether a fold's
// load and its fill and drain hide behind its neighbours is configuration
// (matrix.weight_load_overlap).
#include <cstdint>

#include "core/hardware.hpp"

namespace roofsim {

struct TileShape {
  std::int64_t m = 0, n = 0, k = 0;
};

enum class Dataflow { none, weight_stationary, output_stationary, input_stationary };
Dataflow matrix_dataflow(const MatrixSpec& spec);

// How a tile job maps onto a systolic array (SCALE-Sim v2's Sr, Sc and T): `folds` array-sized
// pieces, each streaming `streamed` rows; `stationary_load` cycles load each fold's stationary
// operand; `fill_drain` is the skew of one fold (array rows + columns - 2).
struct SystolicFolds {
  std::int64_t folds = 0, streamed = 0;
  double stationary_load = 0, fill_drain = 0;
};
SystolicFolds systolic_folds(const MatrixSpec& spec, const TileShape& t);

// Cycles the array is busy with one tile job; `granule_m`: the rows its MMAs pad to (on a GPU;
// tile_granule_m), the unit's granule_m by default.
double matrix_tile_cycles(const MatrixSpec& spec, const TileShape& t, DType compute);
double matrix_tile_cycles(const MatrixSpec& spec, const TileShape& t, DType compute, std::int64_t granule_m);
// The rows a GEMM's tiles pad to: the grouped tiles of weight-only experts (`weight_only_grouped`)
// on a GPU go below the MMA's granule, down to matrix.weight_only_moe_min_tile_rows where a stack
// sets it; every other tile the unit's granule_m.
std::int64_t tile_granule_m(const MatrixSpec& spec, bool weight_only_grouped);
// Cycles from the end of a job's busy time until its result is ready: the pipeline's fill and
// drain, once per job where folds pipeline; none where every fold drains in its busy time.
double matrix_job_latency_cycles(const MatrixSpec& spec);

}  // namespace roofsim
