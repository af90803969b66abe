#pragma once
// A chip as the hardware TOML describes it. Plain data: the analytic model reads the peak
// numbers from it, the SystemC components read the structural ones (array shapes, channels,
// latencies). Units are SI inside the program (Hz, bytes, bytes/s, seconds); the TOML keys
// carry their unit in their name (clock_mhz, bandwidth_gb_per_s, latency_ns, capacity_bytes).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/provenance.hpp"

namespace toml {
inline namespace v3 {
class table;
}
}  // namespace toml

namespace roofsim {

// The kernel instructions a GPU generation offers, as its hardware file declares them ([arch]).
// The kernel models choose paths from these, not from a chip's name or rates: CUTLASS's
// mixed-input GEMMs and XQA's Hopper kernel need wgmma, DeepGEMM's loads need the TMA, the
// previous generation's mma.sync runs at matrix.mma_sync_rate where a newer MMA is native.
struct ArchFeatures {
  bool mma_sync = false;  // warp-level MMA (Ampere's native path; kept by Hopper and Blackwell)
  bool wgmma = false;     // warpgroup MMA, asynchronous (Hopper, sm_90a only)
  bool tma = false;       // the Tensor Memory Accelerator's bulk tensor copies (Hopper, Blackwell)
  bool tcgen05 = false;   // fifth-generation tensor-core MMA on tensor memory (Blackwell)
  // The chip's native MMA issues asynchronously, so a kernel can run one warpgroup's softmax
  // under another's MMAs (FlashAttention-3's ping-pong).
  bool async_mma() const { return wgmma || tcgen05; }
};

// Which model a family of units runs (components/unit_models/, `[matrix] model`, `[vector]
// model`; a fabric's links: components/link_models/, `[links] model`), and where the file names
// it, for errors.
struct UnitModelChoice {
  std::string name = "array";
  std::string file;  // the file that names it (a base file may); empty: source_file
  int line = 0;      // 0: the file does not name it
  // The file to name in an error about it: its own, else the hardware file's.
  const std::string& file_in(const std::string& source_file) const { return file.empty() ? source_file : file; }
};

struct MatrixSpec {
  std::string kind;  // "systolic" (TPU MXU) or "tensor_core" (GPU SM's tensor cores)
  UnitModelChoice model;
  std::int64_t units = 0;  // MXUs or SMs
  double clock_hz = 0;     // the clock that the datasheet peak assumes
  double sustained_clock_hz = 0;  // clock under sustained matrix load (calibrated, <= clock_hz)
  double macs_per_clock = 0;      // per unit, bf16
  std::map<DType, double> dtype_rate;  // multiplier of macs_per_clock; absent = not supported
  // Fraction of that rate the array sustains for a dtype, relative to bf16 (whose losses the
  // sustained clock already carries); absent = 1.
  std::map<DType, double> dtype_efficiency;
  // Op dimensions are padded up to multiples of this granule (systolic: k and n to the array).
  std::int64_t granule_m = 1, granule_n = 1, granule_k = 1;
  // Weight-stationary arrays load a k x n weight tile before streaming rows through it; with
  // double-buffered weights the load hides behind a pass of at least this many rows.
  // The output tile one unit works on at a time (a CTA tile on a GPU, rows x array width on an
  // MXU); the tiler halves it when an op is too small to give every unit a tile.
  std::int64_t work_tile_m = 128, work_tile_n = 128;
  // GPU GEMM kernels: each work tile steps through K in chunks of this many bytes per row;
  // 0 = blocks are chosen freely (a TPU compiler's tiling).
  std::int64_t kernel_k_bytes = 0;
  // A systolic array's dataflow (SCALE-Sim's three): "weight_stationary" (weights held in the
  // PEs, rows of A streamed), "output_stationary" (each PE accumulates one output, A and B
  // streamed), "input_stationary" (A held, B streamed); "" = none (the array runs at its MAC
  // rate on padded operands, as tensor cores do). weight_stationary is the older key for the first.
  std::string dataflow;
  bool weight_stationary = false;
  double weight_load_cycles = 0;  // loading one fold's stationary operand (WS: weights, IS: A)
  // true: the stationary operand is double-buffered: the next fold's load hides behind the
  // current fold and folds pipeline, so a tile job fills and drains once
  // (pipeline_latency_cycles). false: every fold loads, streams, then fills and drains
  // (array rows + columns - 2 cycles) in the array's busy time, as SCALE-Sim v2 counts.
  bool weight_load_overlap = true;
  double pipeline_latency_cycles = 0;  // fill + drain of one tile job
  // A fused attention's softmax: exponentials per clock per unit (the SFUs), one per score,
  // spent between the tile's two matmuls (0: not modelled).
  double exp_per_clock = 0;
  // The share of those exponentials' cycles the MMAs wait for: 1 when a tile's softmax runs
  // between its matmuls with nothing else to do; less when the kernel ping-pongs warpgroups
  // (FlashAttention-3, TensorRT-LLM's Hopper FMHA), one's softmax under the other's MMAs.
  double exp_exposed_share = 1;
  // A fused attention kernel's fixed cycles per CTA (GemmShape::kernel_ctas): loading its
  // query tile and first key/value tiles before the first MMA, normalising and storing its
  // output after the last, which the SM does not hide behind other CTAs' work (0: none).
  double attention_cta_cycles = 0;
  // The same for a decode attention kernel's CTAs (XQA, MMHA): the paged cache's indirection
  // and the merge of a sequence's blocks through memory.
  double decode_attention_cta_cycles = 0;
  // A GQA decode kernel on the tensor cores (XQA; GemmShape::gqa_decode_kernel): fixed cycles
  // per wave of resident CTAs, and cycles per element of each CTA's query tile (loading and
  // converting the group's queries, rescaling and storing their partial outputs).
  double gqa_decode_cta_cycles = 0;
  double gqa_decode_cycles_per_query_element = 0;
  // The fixed cycles per wave of that kernel's Hopper variant on an fp8 cache (XQA's
  // mha_sm90.cu on wgmma, 2-3 CTAs per SM, against mha.cu's one on a 16-bit cache); 0: as
  // gqa_decode_cta_cycles.
  double gqa_decode_qgmma_cta_cycles = 0;
  // A block-scaled fp8 GEMM kernel's (DeepGEMM's) TMA loads of activation rows past the
  // matrix's last row: cycles per such row of the edge tile's box, per 128 of K (0: free).
  double block_scaled_oob_row_cycles = 0;
  // Share of the units' rate that a fused-MoE kernel's grouped GEMM tiles on 16-bit or fp8
  // weights sustain against a dense GEMM kernel's (Triton's fused_moe, as vLLM and SGLang run
  // their experts: token rows gathered by pointer loads instead of the TMA, no producer warps,
  // so the MMAs wait on the loads between k steps). Weight-only formats run other kernels
  // (Marlin, TensorRT-LLM's mixed-input GEMMs) and keep 1. A software stack sets it.
  double fused_moe_mma_share = 1;
  // Share of the units' rate that a ping-pong GEMM kernel's tiles sustain (GemmShape::
  // kernel_pingpong: CUTLASS's KernelTmaWarpSpecializedPingpong, as vLLM's fp8 scaled_mm runs
  // above 64 tokens): its two consumer warpgroups take turns at the tensor cores, each a whole
  // tile's MMAs alone, against a cooperative kernel's two warpgroups on one tile. A stack sets it.
  double pingpong_mma_share = 1;
  // The fewest token rows a grouped tile of weight-only experts takes, below the granule_m of
  // the unit's MMA: their kernels (Triton's for gpt-oss's mxfp4, Marlin) take 16-row blocks for
  // few rows per expert, not wgmma's 64 (0: the granule). At the unit's rate: at such rows the
  // 4-bit weights' reads bind.
  double weight_only_moe_min_tile_rows = 0;
  // A share of the MMA rate for the grouped tiles of weight-only experts (4- or 8-bit weights,
  // 16-bit activations): the warps that issue the MMAs first convert each weight to 16 bits
  // (Triton's upcast for gpt-oss's mxfp4, Marlin's). 1: as a dense kernel's.
  double weight_only_moe_mma_share = 1;
  // Share of the rate per clock that kernels built on the previous generation's warp-level MMA
  // (mma.sync: CUTLASS 2.x, Ampere's kernels) issue on a chip that reaches its rate through
  // another instruction (Hopper's warpgroup wgmma). Below 1 such kernels run at the SMs' boost
  // clock (vector.clock_mhz), not the sustained clock of full-rate MMAs. 1: the native path.
  double mma_sync_rate = 1;
  ArchFeatures arch;  // [arch]
  // A chip that reaches its rate through a warpgroup MMA (Hopper's wgmma) runs CUTLASS's
  // mixed-input kernels for weight-only GEMMs (4- or 8-bit weights, 16-bit activations).
  bool warpgroup_mma() const { return arch.wgmma; }
  // Cycles a mixed-input GEMM kernel's SM spends converting one weight element to the
  // activations' type (and scaling it) in the warps that issue the MMAs, in series with them
  // (0: free). A kernel's instructions per element over the SM's issue rate.
  double mixed_input_convert_cycles = 0;
  // An fp8 (e4m3) context FMHA built for a sliding window (fmha_v2's SLIDING_OR_CHUNKED_CAUSAL
  // e4m3 variant): cycles each CTA spends per step of its key loop beyond what the causal
  // variant of the same kernel spends on that step (0: none).
  double fp8_window_key_tile_cycles = 0;
  // A flash-decoding kernel that reads an fp8 (e4m3) KV cache with fp8 MMAs (FlashAttention-3's
  // fp8 path, vLLM's): cycles each CTA spends per 128 keys of its cache on its SM, beside the
  // tiles' work - the V tile transposed in shared memory for the fp8 MMA's K-major operand,
  // which keeps such a decode from reading its half-size cache twice as fast (0: none).
  double fp8_cache_decode_key_tile_cycles = 0;
  // Its multi-block mode's merge: the last CTA of a (sequence, KV head) folds the blocks'
  // partial results (row max, row sum, output) one block after another: cycles per block.
  double gqa_decode_merge_cycles_per_block = 0;
  // A GEMM kernel split over K into at least this many parts (GemmPlan::k_parts()) leaves
  // fp32 partial tiles in a workspace that a second kernel reduces (cuBLAS's splitKreduce):
  // one more launch, the partials read, the output written. Fewer parts meet in the kernel
  // (serial split-K) at no modelled cost; 0: always in the kernel.
  double split_k_reduce_min_parts = 0;
  // A library splits K only for work tiles of at least this many k-tiles (0: whenever the tiles
  // leave units idle); below it one CTA walks a tile's whole K.
  double split_k_min_k_tiles = 0;
};

struct VectorSpec {
  UnitModelChoice model;
  std::int64_t units = 0;
  double clock_hz = 0;
  double flops_per_clock = 0;  // per unit, fp32 (vector work is done in fp32)
  double pipeline_latency_cycles = 0;
  // Fixed cycles per wave of resident CTAs of a kernel that launches one CTA per token row
  // (VectorShape::per_token_ctas; 0: none).
  double token_cta_cycles = 0;
  // Cycles a CUDA-core GEMV's thread spends per weight element it converts, in its dependent
  // chain (VectorShape::gemv_steps; 0: free).
  double gemv_convert_cycles = 0;
  // And cycles per CTA of such a GEMV on its unit, one CTA after another (its launch, the
  // reduction of its warps' partial sums through shared memory, its retirement; 0: free).
  double gemv_cta_cycles = 0;
};

struct HbmSpec {
  double capacity_bytes = 0;
  std::int64_t stacks = 0;
  std::int64_t channels = 0;
  double bandwidth = 0;   // peak, bytes/s (datasheet)
  double efficiency = 1;  // achievable fraction of peak per channel, streaming (calibrated)
  double tile_efficiency = 1;  // the same for matrix-unit operand tiles (calibrated)
  double write_efficiency = 1;  // the same for writes: a write stream turns the bus around (measured)
  double access_latency_s = 0;
  std::int64_t interleave_bytes = 0;
};

struct DmaSpec {
  double max_inflight_bytes = 0;  // bounded outstanding requests: Little's law caps bandwidth
  double request_bytes = 0;       // one request to the memory system
};

struct OnChipMemory {
  std::string name;
  double capacity_bytes = 0;
  double bandwidth = 0;  // bytes/s, aggregate
  // A read served here: the time from request to data (the tile buffer serves the reads of
  // resident operands, GemmShape::reads_resident). Absent from the file: hbm.access_latency.
  double latency_s = 0;
  // The share of the capacity a working set read over and over can fill and still be served
  // here (the rest goes to lines of other sets and to the partition the reader is not on).
  double resident_share = 1;
  double resident_capacity() const { return capacity_bytes * resident_share; }
};

// Near-memory compute (HBM-PIM / AiM style): a unit beside each HBM channel that reads its
// channel's banks at a multiple of the channel's external bandwidth and computes GEMVs there.
struct PimSpec {
  bool present = false;
  double internal_bandwidth_factor = 1;  // bank-side bandwidth / external bandwidth, per channel
  double flops_per_clock = 0;            // per channel's unit, bf16
  double clock_hz = 0;
  std::int64_t max_rows = 1;             // GEMMs with at most this many rows go there ("auto")
  double step_bytes = 0;                 // weights per channel per step (simulation granularity)
};

// What the chip's events cost in energy ([energy]; issue 52): each FLOP, each bit moved, and
// the power it draws doing nothing. Joules here (the file gives pJ and W).
struct EnergySpec {
  bool present = false;
  double static_w = 0;            // board power with every unit idle, drawn the whole run
  double matrix_j_per_flop = 0;   // matrix units at their 16-bit rate; a dtype at r x that rate: 1/r of it
  double vector_j_per_flop = 0;   // vector units (CUDA cores)
  double hbm_j_per_bit = 0;       // an HBM read or write, I/O included
  double onchip_j_per_bit = 0;    // a read of operands resident in the tile buffer (the L2)
  double link_j_per_bit = 0;      // a bit over one chip-to-chip link (one hop)
  double near_memory_j_per_bit = 0;  // a bank read by the near-memory units (no I/O)
  // The board's power limit (0: none). Where the matrix units at their full 16-bit rate would
  // draw more than it allows (static power included), the matrix clock is held down to where
  // they do not: power_limited_clock_hz (0: the limit does not bind), in place of the fitted
  // sustained clock, which is kept in unlimited_clock_hz.
  double tdp_w = 0;
  double power_limited_clock_hz = 0, unlimited_clock_hz = 0;
};

// What the chip is made of in silicon and what making one costs ([area], [cost]; issue 52): areas
// per unit at the chip's process, so that a what-if that scales a unit scales its area; the die
// (every unit's area plus the rest) priced as a share of a wafer over its yield, plus the HBM.
// mm2 and USD here (the file gives um2 for the per-MAC and per-FLOP areas, and per-cm2 defects).
struct AreaSpec {
  bool present = false;
  double matrix_mm2_per_mac = 0;   // matrix units, per MAC per clock at the 16-bit rate
  double vector_mm2_per_flop = 0;  // vector units, per FP32 FLOP per clock
  double unit_overhead_mm2 = 0;    // per matrix unit (SM, core): control, schedulers, register file, crossbar port
  double sram_mm2_per_mib = 0;     // on-chip memories, per MiB of their capacity
  double hbm_interface_mm2 = 0;    // per HBM stack: its PHY and memory controller
  double link_interface_mm2 = 0;   // per chip-to-chip link: its PHY and controller
  double other_mm2 = 0;            // the rest of the die (PCIe, media engines, I/O, spare units)
};
struct CostSpec {
  bool present = false;
  double wafer_usd = 0;               // one processed wafer of the chip's node
  double wafer_diameter_mm = 300;
  double defect_density_per_mm2 = 0;  // killer defects (the file: per cm2)
  double yield_cluster = 3;           // the negative-binomial yield model's clustering
  double hbm_usd_per_byte = 0;        // the memory's price (the file: per GB)
  double package_usd = 0;             // packaging, assembly and test per chip (0: not counted)
};

struct LinkSpec {
  std::string kind;  // "nvlink4", "ici", ...
  UnitModelChoice model;  // the fabric's link model (components/link_models/)
  // How the chips' links join them: "switch", "mesh" or "torus"; "" = by kind (ici: torus,
  // others: switch). Picks the default topology of multi-chip runs.
  std::string fabric;
  std::int64_t count = 0;
  double bandwidth_per_direction = 0;  // bytes/s per link
  double efficiency = 1;               // achievable fraction (calibrated)
  double latency_s = 0;
  bool in_switch_reduction = false;    // the switch can reduce (NVLink SHARP)
  double switch_reduction_rate = 0;    // bytes/s per port the switch reduces (0 = port speed)
};

// The scale-out network that joins nodes (an optional [network] section): each node's
// `chips_per_node` chips share an NVLink switch; each chip has `nics_per_chip` NICs of
// `nic_bandwidth` bytes/s per direction into a rail-optimised network (NIC i of every node on
// rail switch i) or a fat tree whose leaves have `oversubscription` times more bandwidth down
// than up. `latency_s` is one traversal, NIC to NIC.
struct NetworkSpec {
  bool present = false;
  std::int64_t chips_per_node = 0;
  std::int64_t nics_per_chip = 1;
  double nic_bandwidth = 0;  // bytes/s per NIC per direction
  double latency_s = 0;
  double efficiency = 1;  // achievable fraction of the NIC's line rate
  std::string shape;      // "rail" or "fat_tree"
  double oversubscription = 1;
  // A chip's NIC port, efficiency applied: all of its NICs (bytes/s per direction).
  double port_bandwidth() const { return static_cast<double>(nics_per_chip) * nic_bandwidth * efficiency; }
};

// How a collective library's kernels use the links: NCCL's protocols (LL, LL128, Simple) with
// their wire efficiency and per-step latency, its channels (CTAs, each copying at a bounded
// rate), its per-call launch, NVLS, point-to-point (all-to-all) and the serving frameworks'
// custom all-reduce kernels. The defaults cost nothing beyond the links.
struct CollectiveKernelSpec {
  double launch_s = 0;  // NCCL: one call's kernel launch and the ranks' first handshake
  // Per protocol: the fraction of the link the payload gets (LL: 8 bytes of flags per 8 of
  // data; LL128: 8 per 128), the latency a ring step adds to the switch traversal, and the
  // bytes a channel must have before NCCL spreads the call over another channel.
  double ll_efficiency = 1, ll128_efficiency = 1, simple_efficiency = 1;
  double ll_step_s = 0, ll128_step_s = 0, simple_step_s = 0;
  double ll_channel_bytes = 0, ll128_channel_bytes = 0, simple_channel_bytes = 0;
  std::int64_t channels = 0;     // most channels NCCL runs (0: no limit)
  double channel_bandwidth = 0;  // bytes/s one channel moves (0: no limit)
  double nvls_latency_s = 0;     // NVLS: the multicast objects' extra per-call latency
  // Ring (all-gather, reduce-scatter, all-reduce): a rank's own shard is copied between its
  // user buffer and the ring once per call at this rate, not overlapped with the link
  // transfers (0: free).
  double ring_copy_bandwidth = 0;
  double p2p_ll_max_bytes = 0;   // point-to-point: LL up to this many bytes per peer, then Simple
  double p2p_peer_s = 0;         // point-to-point: posting one peer's send and receive
  double p2p_efficiency = 1;     // point-to-point copies: achievable fraction of the port
  double p2p_simple_step_s = 0;  // point-to-point Simple: latency a step adds (0: simple_step_s, as rings)
  // The frameworks' custom all-reduce (one-shot / two-shot through NVLink): launch and barrier,
  // the two-shot's second barrier and reduction pass, the largest buffer before NCCL takes
  // over, and the fraction of the port their copies reach.
  double trtllm_launch_s = 0, trtllm_twoshot_s = 0, trtllm_max_bytes = 0;
  double vllm_launch_s = 0, vllm_twoshot_s = 0, vllm_max_bytes = 0;
  double custom_efficiency = 1;
};

// What the units' DMA engine reads and writes through (components/memory_models/): the HBM
// channels themselves ("hbm"), or a memory model in front of them, by name.
struct MemorySpec {
  std::string model = "hbm";
  // l2_hit_rate: the share of each read's bytes the tile buffer (chip.tile_buffer) serves.
  double hit_rate = 0;
  int model_line = 0;       // where the file names the model (0: it does not), for errors
  std::string model_file;   // the file that names it (a base file may); empty: source_file
  // [memory] keys this table does not declare: the model's own parameters, a number each, with
  // where the file gives it. The model declares and checks them (components/memory_model.hpp).
  struct ModelParam {
    double value = 0;
    std::string file;
    int line = 0;
  };
  std::map<std::string, ModelParam> params;
};

struct HardwareSpec {
  std::string name;         // preset name or file stem
  std::string description;  // human name of the chip
  std::string source_file;
  MatrixSpec matrix;
  VectorSpec vector;
  HbmSpec hbm;
  DmaSpec dma;
  MemorySpec memory;
  std::vector<OnChipMemory> onchip;
  std::string tile_buffer;  // which on-chip memory holds an op's tiles
  LinkSpec links;
  NetworkSpec network;
  CollectiveKernelSpec collectives;
  PimSpec pim;
  EnergySpec energy;
  AreaSpec area;
  CostSpec cost;
  double op_overhead_s = 0;  // device-side fixed cost of one op (kernel start and drain)
  double op_overhead_cycles = 0;  // the same in SM cycles where the file states it so (0: stated in ns)
  // Host time to launch one op. The host runs ahead of the device, so launches only cost time
  // when ops are shorter than this (0 = ops launch as a single graph / program).
  double host_launch_interval_s = 0;
  // The chip's link to host memory (PCIe), per direction as copies reach it, and the fixed
  // cost of one copy; 0: none described.
  double host_link_bandwidth = 0;
  double host_link_latency_s = 0;
  // key path -> where the number comes from ("datasheet ...", "calibrated: ..."), shared by copies.
  ProvenanceMap provenance;

  const OnChipMemory& tile_buffer_memory() const;
  // Peak matrix FLOP/s for a dtype (0 when the matrix units lack it) and vector FLOP/s, as the
  // chip's unit model states them (UnitModel::peak_flops, components/unit_model.hpp): a model
  // whose units run faster than the file's rates raises the bound with them.
  double matrix_peak_flops(DType t) const;
  double vector_peak_flops() const;
  // The same from the file's structure alone (units x MACs x 2 x clock): the "array" model's.
  double array_matrix_peak_flops(DType t) const;
  double array_vector_peak_flops() const;
  // The FLOP/s of dtype `t` the power limit allows the matrix units: (TDP - static) / energy per
  // FLOP; 0 without a limit (energy.tdp_w) or a dtype the units lack.
  double power_roof_flops(DType t) const;
  double pim_peak_flops() const { return pim.present ? static_cast<double>(hbm.channels) * pim.flops_per_clock * pim.clock_hz : 0; }
  double pim_bandwidth() const { return pim.present ? hbm.bandwidth * pim.internal_bandwidth_factor : 0; }
  // The bandwidth the analytic bounds read memory at: HBM's peak, or what the memory model in
  // front of it says it streams at most (MemoryModel::bandwidth, components/memory_model.hpp;
  // l2_hit_rate: min(HBM / (1 - h), L2 / h)). The roofline's slope and ridge follow it.
  double memory_bandwidth() const;
  bool matrix_supports(DType t) const { return matrix.dtype_rate.count(t) > 0; }
};

// The memory models live above core (components/memory_model.hpp), which installs this: the
// bandwidth a chip's memory model streams at most. Without it, or for "hbm", HBM's peak.
using MemoryBandwidthOf = double (*)(const HardwareSpec&);
void set_memory_bandwidth_of(MemoryBandwidthOf of);
// Likewise the unit models (components/unit_model.hpp): the peak FLOP/s of `t` on the matrix
// units (`matrix` true) or of the vector units, as the chip's model for that family states it.
using UnitPeakOf = double (*)(const HardwareSpec&, bool matrix, DType t);
void set_unit_peak_of(UnitPeakOf of);

// Loads a hardware TOML file; throws ConfigError naming file, line and key on any problem.
HardwareSpec load_hardware_file(const std::string& path);
// A hardware TOML document already parsed (and perhaps edited: what-if variants, sweeps, the
// Python module); `path` names it in messages, `name` becomes HardwareSpec::name.
HardwareSpec load_hardware_document(const toml::table& doc, const std::string& path, const std::string& name);
// A preset name ("h100_sxm5") or a path to a .toml file.
HardwareSpec load_hardware(const std::string& name_or_path);

// One non-ideal cost of a chip and how to take it away. In order, they turn a chip into its
// ideal self: make_ideal applies them all, `roofsim explain` one after another.
struct NonIdealCost {
  std::string name;  // "launch", "clock", ...
  std::string what;  // for people
  void (*remove)(HardwareSpec&);
};
const std::vector<NonIdealCost>& non_ideal_costs();

// The same hardware with every efficiency at 1 and every latency and overhead at zero; the
// sustained clock becomes the datasheet clock (every non_ideal_costs() removed). Used by --ideal.
HardwareSpec make_ideal(HardwareSpec hw);

}  // namespace roofsim
