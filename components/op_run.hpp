#pragma once
// The pipeline every op runs as: up to `stages` step loads in flight; a step's compute is
// dispatched to the units as soon as its load has arrived; its buffer is freed (and the load
// `stages` steps ahead issued) when the last of its compute jobs finishes; results are written
// back as jobs finish. The op is done when every step has computed and every write landed.
#include <cstdint>
#include <vector>

#include "components/server.hpp"
#include "components/tiling.hpp"

namespace roofsim {

class Chip;
struct OpResult;

// Bytes at an HBM address. Tensors are laid out block-major, so a block is one contiguous run.
struct MemRange {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
};

// A library kernel's CTAs, as their fixed costs count (GemmShape::kernel_ctas and after).
struct KernelCtas {
  std::int64_t ctas = 0;      // 0: not counted
  std::int64_t per_unit = 1;  // resident on one unit at once
  bool decode = false;        // a decode kernel's (matrix.decode_attention_cta_cycles)
  bool gqa_decode = false;    // a GQA decode kernel's (matrix.gqa_decode_*)
  std::int64_t query_elements = 0;  // per CTA, for gqa_decode
  bool qgmma = false;               // gqa_decode on an fp8 cache (matrix.gqa_decode_qgmma_cta_cycles)
  std::int64_t window_key_steps = 0;  // an fp8 sliding-window FMHA's key-loop steps, all CTAs (matrix.fp8_window_key_tile_cycles)
  bool per_token = false;           // one CTA per token row (vector.token_cta_cycles)
  std::int64_t fp8_cache_key_tiles = 0;  // a decode kernel's 128-key tiles of an fp8 cache, all CTAs (matrix.fp8_cache_decode_key_tile_cycles)
  double chain_steps = 0;                 // a CUDA-core GEMV's steps along K (VectorShape::gemv_steps)
  std::int64_t chain_step_converts = 0;   // and the weight elements a thread converts per step
};

// The time each of `units` spends on a kernel's CTAs' fixed costs, at `clock_hz`: the fixed
// cycles once per wave of units x per_unit resident CTAs (resident CTAs overlap their
// prologues and epilogues; a CUDA-core GEMV's wave lasts its threads' chain along K) and, for a
// GQA decode kernel or a GEMV, the cycles of every CTA the unit runs (work the unit does, one
// CTA after another).
Picoseconds kernel_cta_ps(const HardwareSpec& hw, std::size_t units, const KernelCtas& k, double clock_hz);

class OpRun {
 public:
  OpRun(Chip& chip, std::int64_t steps, int stages);
  virtual ~OpRun() = default;
  virtual void start(Callback done);
  bool finished() const { return finished_; }
  // The op's reads are served by the tile buffer, where its operands already are.
  void set_reads_resident(bool resident) { reads_resident_ = resident; }

  // What this op did (ops may overlap, so chip-wide counters cannot be split afterwards).
  double flops = 0;
  double padded_flops = 0;  // what the arrays spent, padding to their granule included
  std::uint64_t bytes_read = 0, bytes_written = 0;
  std::uint64_t onchip_bytes_read = 0;  // of bytes_read: from the tile buffer, where resident
  std::uint64_t events = 0;
  int trace_name = -1;  // the op's name in the chip's trace, -1 when not tracing

 protected:
  // What the step reads before it can compute (up to two ranges: A and B blocks).
  virtual void loads(std::int64_t step, MemRange out[2]) const = 0;
  // Whether the loads are matrix-unit operand tiles (served at hbm.tile_efficiency).
  virtual bool tile_loads() const { return false; }
  // Submits the step's compute jobs; each calls job_done(step, what_to_write) when finished.
  virtual void dispatch(std::int64_t step) = 0;
  void jobs_added(std::int64_t step, std::int64_t n);
  void job_done(std::int64_t step, MemRange write);
  // Reserves `bytes` of HBM address space for one of the op's tensors.
  std::uint64_t allocate(std::uint64_t bytes);
  Chip& chip_;
  // A library kernel's CTAs' fixed costs (kernel_cta_ps), held on every unit in equal shares
  // before each step's jobs: a unit busy with its CTAs' prologues and epilogues does no MACs
  // while the loads of later steps go on, as other SMs keep HBM busy meanwhile.
  void hold_units_for_ctas(Picoseconds per_unit);
  Picoseconds cta_step_ps_ = 0;
  // Latency after the last job and write before the op is done (a decode kernel's merge of
  // its blocks' partial results).
  Picoseconds tail_ps_ = 0;

 private:
  void issue_loads();
  void issue_load();
  void try_dispatch();
  void finish_if_done();

  std::int64_t steps_;
  int stages_;
  std::int64_t next_load_ = 0, next_dispatch_ = 0, steps_done_ = 0;
  std::vector<char> loaded_;              // per slot
  std::vector<char> in_use_;              // per slot: loading, loaded or computing
  std::vector<std::int64_t> jobs_left_;   // per slot
  std::int64_t writes_pending_ = 0;
  bool reads_resident_ = false;
  bool finished_ = false;
  Callback done_;
};

class GemmRun : public OpRun {
 public:
  GemmRun(Chip& chip, const GemmPlan& plan);

 private:
  void loads(std::int64_t step, MemRange out[2]) const override;
  bool tile_loads() const override { return true; }
  void dispatch(std::int64_t step) override;
  // Coarse events: a step's jobs dealt to the units in turn, as cycles per unit.
  struct WaveCycles {
    double every_unit = 0;     // cycles each unit gets on top of unit_cycles_
    double padded_cycles = 0;  // all jobs' cycles, tiles padded to the unit's shape
  };
  WaveCycles coarse_wave(std::size_t first_unit, std::int64_t rows_of_tiles, std::int64_t tiles_m, std::int64_t padding_m, std::int64_t tiles_n,
                         std::int64_t parts, const double (&cycles)[2][2][2]);
  GemmPlan plan_;
  // The unit the current block's first job went to: every k step of a block deals its jobs to
  // the same units, as each CTA walks the K of its tile on one SM.
  std::size_t block_first_unit_ = 0;
  // Cycles per weight element a mixed-input kernel spends converting its weights (0 for every
  // other GEMM): worked out once per op, not per step.
  double convert_cycles_per_element_ = 0;
  std::uint64_t a_base_, b_base_, c_base_;
  std::vector<double> unit_cycles_;  // scratch: one wave's work per unit, less WaveCycles::every_unit
};

class VectorRun : public OpRun {
 public:
  VectorRun(Chip& chip, const VectorPlan& plan);

 private:
  void loads(std::int64_t step, MemRange out[2]) const override;
  void dispatch(std::int64_t step) override;
  VectorPlan plan_;
  std::uint64_t in_base_, out_base_;
  std::vector<double> unit_flops_;  // scratch: one wave's FLOPs per unit with a share, in turn
};

}  // namespace roofsim
