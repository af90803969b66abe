#include "core/hardware_params.hpp"

#include <sstream>

#include "core/checked.hpp"
#include "core/format.hpp"

namespace roofsim {

namespace {

constexpr double kMHz = 1e6, kGBps = 1e9, kNs = 1e-9, kPj = 1e-12;
// um2 -> mm2; per cm2 -> per mm2; per GB -> per byte.
constexpr double kUm2 = 1e-6, kPerCm2 = 1e-2, kPerGB = 1e-9;
using K = ParamKind;

// Short helpers so that each row reads as a declaration.
#define FIELD(expr) [](HardwareSpec& h) -> ParamField { return &h.expr; }

std::vector<HardwareParam> make_params() {
  return {
      {"chip.description", "", 1, K::text, true, 0, "Human name of the chip", FIELD(description)},
      {"chip.tile_buffer", "", 1, K::text, true, 0, "Which [onchip] memory holds an op's tiles (its capacity bounds the tiler)", FIELD(tile_buffer)},
      {"chip.op_overhead_ns", "ns", kNs, K::non_negative, false, 0,
       "Device-side fixed cost of one op: the front end starting a kernel after the one before, the kernel's start and drain "
       "(with chip.op_overhead_cycles: that count at vector.clock_mhz)",
       FIELD(op_overhead_s)},
      {"chip.op_overhead_cycles", "cycles", 1, K::non_negative, false, 0,
       "The same cost in cycles of the SM clock (vector.clock_mhz; small kernels run at boost), so that a chip with another "
       "clock pays it in its own time; give this or op_overhead_ns",
       FIELD(op_overhead_cycles), false},

      {"matrix.kind", "", 1, K::text, true, 0, "systolic (a TPU MXU: see dataflow) or tensor_core (a GPU SM's tensor cores)", FIELD(matrix.kind)},
      {"matrix.model", "", 1, K::text, false, 0,
       "The matrix units' model (components/unit_models/, or a library's: --plugin): array, identical units each serving one "
       "job after another",
       FIELD(matrix.model.name), false, "array"},
      {"matrix.units", "", 1, K::count, true, 0, "Matrix units: MXUs or SMs", FIELD(matrix.units)},
      {"matrix.clock_mhz", "MHz", kMHz, K::positive, true, 0, "The clock the datasheet peak assumes", FIELD(matrix.clock_hz)},
      {"matrix.sustained_clock_mhz", "MHz", kMHz, K::positive, false, 0,
       "Clock under sustained matrix load (calibrated; at most clock_mhz)", FIELD(matrix.sustained_clock_hz), true, "clock_mhz"},
      {"matrix.macs_per_clock", "MAC/clock", 1, K::positive, true, 0, "Multiply-accumulates per clock per unit, bf16", FIELD(matrix.macs_per_clock)},
      {"matrix.granule_m", "", 1, K::count, true, 0, "Op rows are padded up to a multiple of this", FIELD(matrix.granule_m)},
      {"matrix.granule_n", "", 1, K::count, true, 0, "Op columns are padded up to a multiple of this (systolic: the array width)", FIELD(matrix.granule_n)},
      {"matrix.granule_k", "", 1, K::count, true, 0, "The reduction is padded up to a multiple of this (systolic: the array height)", FIELD(matrix.granule_k)},
      {"matrix.work_tile_m", "", 1, K::count, true, 0, "Rows of the output tile one unit works on (a CTA tile; halved for small ops)", FIELD(matrix.work_tile_m)},
      {"matrix.work_tile_n", "", 1, K::count, true, 0, "Columns of that output tile", FIELD(matrix.work_tile_n)},
      {"matrix.kernel_k_bytes", "bytes", 1, K::count, false, 0,
       "Bytes of K one main-loop stage of a GEMM kernel loads per row (a CTA's k-tile). Set: GEMMs run as kernels "
       "do, work tiles stepping through K in these chunks, split over K across units when the tiles are too few "
       "(split-K); absent: the tiler chooses blocks freely (TPU compilers)", FIELD(matrix.kernel_k_bytes), false},
      {"matrix.dataflow", "", 1, K::text, false, 0,
       "Systolic arrays: weight_stationary (weights held in the PEs, rows of A streamed; TPU MXU), output_stationary "
       "(each PE accumulates one output, A and B streamed) or input_stationary (A held, B streamed). A tile job runs "
       "as SCALE-Sim v2 folds it: K x N (WS), M x N (OS) or K x M (IS) over the granule_k x granule_n array, "
       "M, K or N rows streamed through each fold",
       FIELD(matrix.dataflow), false, "weight_stationary when weight_stationary = true, else none (tensor cores)"},
      {"matrix.weight_stationary", "", 1, K::flag, false, 0, "Older form of dataflow = \"weight_stationary\"",
       FIELD(matrix.weight_stationary), false},
      {"matrix.weight_load_cycles", "cycles", 1, K::non_negative, false, 0,
       "Cycles to load one fold's stationary operand into the array: weights (weight_stationary) or A "
       "(input_stationary); required for those dataflows", FIELD(matrix.weight_load_cycles)},
      {"matrix.weight_load_overlap", "", 1, K::flag, false, 1,
       "Systolic dataflows: true = double-buffered, the next fold's load hides behind the current fold and folds "
       "pipeline (a tile job fills and drains once: pipeline_latency_cycles); false = each fold loads, streams, then "
       "fills and drains (granule_k + granule_n - 2 cycles) before the next starts, as SCALE-Sim v2 counts",
       FIELD(matrix.weight_load_overlap), false},
      {"matrix.pipeline_latency_cycles", "cycles", 1, K::non_negative, false, 0,
       "Fill and drain of one tile job (not added where weight_load_overlap = false: every fold's are in the busy time)",
       FIELD(matrix.pipeline_latency_cycles)},
      {"matrix.exp_per_clock", "1/clock", 1, K::non_negative, false, 0,
       "Exponentials per clock per unit for a fused attention's softmax (GPU SFUs), one per score, between a tile's "
       "two matmuls (0: not modelled)", FIELD(matrix.exp_per_clock)},
      {"matrix.exp_exposed_share", "", 1, K::fraction, false, 1,
       "Share of the softmax's exponential cycles the MMAs wait for (1: none hidden; a kernel that ping-pongs two "
       "warpgroups runs one's softmax under the other's MMAs)", FIELD(matrix.exp_exposed_share)},
      {"matrix.attention_cta_cycles", "cycles", 1, K::non_negative, false, 0,
       "Fixed cycles per CTA of a fused attention kernel that counts its CTAs (a context FMHA: one per sequence, query "
       "head and query tile): loading the query tile and first key/value tiles, normalising and storing the output (0: none)",
       FIELD(matrix.attention_cta_cycles)},
      {"matrix.decode_attention_cta_cycles", "cycles", 1, K::non_negative, false, 0,
       "Fixed cycles per CTA of a decode attention kernel that counts its CTAs (XQA: one per sequence, KV head and cache "
       "block; MMHA: one per sequence and query head), paid once per wave of resident CTAs (0: none)",
       FIELD(matrix.decode_attention_cta_cycles)},
      {"matrix.gqa_decode_cta_cycles", "cycles", 1, K::non_negative, false, 0,
       "Fixed cycles per wave of resident CTAs of a GQA decode kernel on the tensor cores (TensorRT-LLM's XQA: one CTA "
       "per sequence, KV head and cache block, serving the head's query group), in place of "
       "decode_attention_cta_cycles (0: none)",
       FIELD(matrix.gqa_decode_cta_cycles)},
      {"matrix.gqa_decode_qgmma_cta_cycles", "cycles", 1, K::non_negative, false, 0,
       "The same for that kernel's Hopper variant on an fp8 cache (XQA's mha_sm90.cu on wgmma, 2-3 CTAs per SM; "
       "mha.cu on a 16-bit cache keeps gqa_decode_cta_cycles) (0: as gqa_decode_cta_cycles)",
       FIELD(matrix.gqa_decode_qgmma_cta_cycles)},
      {"matrix.block_scaled_oob_row_cycles", "cycles/row", 1, K::non_negative, false, 0,
       "A block-scaled fp8 GEMM (DeepGEMM's kernel): cycles its edge tiles spend per activation row of the TMA box "
       "beyond the matrix's last row, per scale block of K (128-row boxes over 129 rows load 127 rows out of bounds on "
       "every step; the 64-row boxes of at most 64 rows pay nothing; 0: free)",
       FIELD(matrix.block_scaled_oob_row_cycles)},
      {"matrix.fused_moe_mma_share", "", 1, K::fraction, false, 1,
       "Share of the matrix units' rate that the grouped GEMM tiles of a fused-MoE kernel (GemmShape::grouped: an MoE "
       "layer's experts) on 16-bit or fp8 weights sustain against a dense GEMM kernel's: Triton's fused_moe, as vLLM "
       "and SGLang run those experts, gathers each tile's token rows by pointer loads instead of the TMA and has no "
       "producer warps, so its MMAs wait on the loads. Weight-only formats (4- and 8-bit weights with 16-bit "
       "activations) run other kernels and keep 1 (1: as a dense kernel's; a software stack sets it)",
       FIELD(matrix.fused_moe_mma_share)},
      {"matrix.pingpong_mma_share", "", 1, K::fraction, false, 1,
       "Share of the matrix units' rate that a ping-pong GEMM kernel's tiles sustain (CUTLASS's "
       "KernelTmaWarpSpecializedPingpong, as vLLM's fp8 scaled_mm runs above 64 tokens): its two consumer warpgroups "
       "take turns at the tensor cores, each issuing a whole tile's MMAs alone (1: as the library's kernels; a software "
       "stack sets it)",
       FIELD(matrix.pingpong_mma_share)},
      {"matrix.weight_only_moe_min_tile_rows", "rows", 1, K::non_negative, false, 0,
       "The fewest token rows a grouped GEMM tile of weight-only experts takes, below the unit's granule_m (their "
       "kernels - Triton's for gpt-oss's mxfp4, Marlin - take 16-row blocks for few rows per expert, not wgmma's "
       "64-row ones), at the unit's rate (0: the granule; a software stack sets it)",
       FIELD(matrix.weight_only_moe_min_tile_rows)},
      {"matrix.weight_only_moe_mma_share", "", 1, K::fraction, false, 1,
       "Share of the matrix units' rate that the grouped GEMM tiles of weight-only experts (4- or 8-bit weights, 16-bit "
       "activations: gpt-oss's mxfp4 on Hopper) sustain: the warps that issue the MMAs first convert each weight of "
       "their tile to 16 bits (1: as a dense kernel's; a software stack sets it)",
       FIELD(matrix.weight_only_moe_mma_share)},
      {"matrix.mma_sync_rate", "", 1, K::fraction, false, 1,
       "Share of the matrix units' rate per clock that kernels built on the previous generation's warp-level MMA "
       "(mma.sync: CUTLASS 2.x kernels, e.g. TensorRT-LLM's SmoothQuant int8 GEMM) issue where the chip reaches its rate "
       "through another instruction (Hopper: wgmma). Below 1 they run at the SMs' boost clock (vector.clock_mhz), not the "
       "sustained clock of full-rate MMAs: less tensor work, less power. 1: mma.sync is the native path (Ampere)",
       FIELD(matrix.mma_sync_rate)},
      {"matrix.mixed_input_convert_cycles", "cycles/element", 1, K::non_negative, false, 0,
       "Cycles an SM spends converting one weight element of a weight-only GEMM (4- or 8-bit weights, 16-bit "
       "activations: TensorRT-LLM's fpA_intB) to 16 bits, scale applied, in the warps that issue the MMAs, in "
       "series with them: a kernel's instructions per element over the SM's issue rate (0: free; a software stack "
       "sets it)",
       FIELD(matrix.mixed_input_convert_cycles)},
      {"matrix.fp8_window_key_tile_cycles", "cycles", 1, K::non_negative, false, 0,
       "A context FMHA on fp8 (e4m3) operands with a sliding window shorter than the sequence (fmha_v2's "
       "sliding-window e4m3 variant): cycles each CTA spends per step of its key loop (STEP_KV keys) beyond the "
       "causal variant's, on its SM (0: none)",
       FIELD(matrix.fp8_window_key_tile_cycles)},
      {"matrix.fp8_cache_decode_key_tile_cycles", "cycles", 1, K::non_negative, false, 0,
       "A flash-decoding kernel on an fp8 (e4m3) KV cache with fp8 MMAs (FlashAttention-3's fp8 path, vLLM's "
       "fused attention): cycles each CTA spends per 128 keys of the cache on its SM beside the tiles' work, the V "
       "tile transposed in shared memory for the fp8 MMA (0: none; a software stack sets it)",
       FIELD(matrix.fp8_cache_decode_key_tile_cycles)},
      {"matrix.gqa_decode_cycles_per_query_element", "cycles/element", 1, K::non_negative, false, 0,
       "Cycles each CTA of that kernel spends per element of its query tile (the group's query rows padded to the "
       "kernel's MMA tile, times the head dim), one CTA after another on its SM (0: none)",
       FIELD(matrix.gqa_decode_cycles_per_query_element)},
      {"matrix.gqa_decode_merge_cycles_per_block", "cycles", 1, K::non_negative, false, 0,
       "That kernel's multi-block mode splits a sequence's cache into blocks, one CTA each; once they are done the last "
       "folds their partial results (row max, row sum, output) one block after another: cycles per block, after the "
       "op's last job (0: none)",
       FIELD(matrix.gqa_decode_merge_cycles_per_block)},
      {"matrix.split_k_reduce_min_parts", "", 1, K::non_negative, false, 0,
       "A GEMM whose K is split over units (split-K) into at least this many parts writes fp32 partial tiles that a "
       "second kernel reduces (cuBLAS's splitKreduce): one more launch, the partials read and the output written; "
       "fewer parts meet inside the kernel (0: never a second kernel)", FIELD(matrix.split_k_reduce_min_parts)},
      {"matrix.split_k_min_k_tiles", "", 1, K::non_negative, false, 0,
       "A GEMM library splits K over units (split-K) only when a work tile's K loop has at least this many k-tiles "
       "(kernel_k_bytes each); shorter loops run whole in one CTA per tile, its k-tiles a load latency per pipeline "
       "depth apart, even when the tiles leave units idle (0: split whenever tiles are fewer than units)",
       FIELD(matrix.split_k_min_k_tiles)},
      {"matrix.dtype_rate.DTYPE", "x bf16", 1, K::positive, true, 0,
       "MAC rate of a dtype relative to macs_per_clock; a dtype not listed is not supported (bf16 must be listed)", nullptr},
      {"matrix.dtype_efficiency.DTYPE", "", 1, K::fraction, false, 1,
       "Fraction of that rate the array sustains for a dtype, relative to bf16 (calibrated; default 1)", nullptr, false},

      {"arch.mma_sync", "", 1, K::flag, false, 0,
       "The chip has the warp-level MMA (mma.sync: Ampere's native path, kept by Hopper and Blackwell). Kernels built on it "
       "(CUTLASS 2.x, e.g. TensorRT-LLM's SmoothQuant int8 GEMM) run at matrix.mma_sync_rate when a newer MMA is native",
       FIELD(matrix.arch.mma_sync)},
      {"arch.wgmma", "", 1, K::flag, false, 0,
       "The chip reaches its rate through the warpgroup MMA (Hopper, sm_90a). Weight-only GEMMs of 5 or more tokens then run "
       "CUTLASS's mixed-input kernels (matrix.mixed_input_convert_cycles), XQA's fp8-cache kernel is mha_sm90 "
       "(matrix.gqa_decode_qgmma_cta_cycles; without wgmma those keys are unused), a fused attention may hide softmax under "
       "MMAs (matrix.exp_exposed_share)",
       FIELD(matrix.arch.wgmma)},
      {"arch.tma", "", 1, K::flag, false, 0,
       "The chip has the Tensor Memory Accelerator (Hopper, Blackwell): DeepGEMM's block-scaled fp8 kernel loads through it "
       "(matrix.block_scaled_oob_row_cycles)",
       FIELD(matrix.arch.tma)},
      {"arch.tcgen05", "", 1, K::flag, false, 0,
       "The chip reaches its rate through the fifth-generation tensor-core MMA on tensor memory (Blackwell, sm_100); like wgmma "
       "it issues asynchronously (matrix.exp_exposed_share, matrix.mma_sync_rate)",
       FIELD(matrix.arch.tcgen05)},

      {"vector.model", "", 1, K::text, false, 0,
       "The vector units' model (components/unit_models/, or a library's: --plugin): array, identical units each serving one "
       "job after another",
       FIELD(vector.model.name), false, "array"},
      {"vector.units", "", 1, K::count, true, 0, "Vector units (SMs' CUDA cores, a TPU core's VPU)", FIELD(vector.units)},
      {"vector.clock_mhz", "MHz", kMHz, K::positive, true, 0, "Vector units' clock", FIELD(vector.clock_hz)},
      {"vector.flops_per_clock", "FLOP/clock", 1, K::positive, true, 0, "FP32 FLOPs per clock per unit", FIELD(vector.flops_per_clock)},
      {"vector.pipeline_latency_cycles", "cycles", 1, K::non_negative, false, 0, "Fill and drain of one vector job", FIELD(vector.pipeline_latency_cycles)},
      {"vector.token_cta_cycles", "cycles", 1, K::non_negative, false, 0,
       "Fixed cycles per wave of resident CTAs of a kernel that launches one CTA per token row (vLLM's fp8 activation "
       "quantization: a 1024-thread block per token, two resident per SM): its loads' round trips and the block's start "
       "and retirement, where the row's own bytes are few (0: none; a software stack sets it)",
       FIELD(vector.token_cta_cycles)},
      {"vector.gemv_convert_cycles", "cycles/element", 1, K::non_negative, false, 0,
       "Cycles one thread of a GEMV on the CUDA cores (TensorRT-LLM's batched weight-only GEMV below 5 tokens) "
       "spends per 4- or 8-bit weight element it unpacks, converts to 16 bits and scales, one after another after "
       "each step's loads arrive: a latency-bound chain, paid once per wave of resident CTAs (0: free; a software "
       "stack sets it)",
       FIELD(vector.gemv_convert_cycles)},
      {"vector.gemv_cta_cycles", "cycles", 1, K::non_negative, false, 0,
       "Cycles each CTA of such a GEMV costs its SM, one CTA after another however many are resident: its launch, "
       "the reduction of its warps' partial sums through shared memory, and its retirement; it shows where many "
       "128-thread CTAs each do little (0: free; a software stack sets it)",
       FIELD(vector.gemv_cta_cycles)},

      {"hbm.capacity_bytes", "bytes", 1, K::positive, true, 0, "HBM capacity", FIELD(hbm.capacity_bytes)},
      {"hbm.stacks", "", 1, K::count, true, 0, "HBM stacks (trace tracks)", FIELD(hbm.stacks)},
      {"hbm.channels", "", 1, K::count, true, 0, "Independent channels across all stacks; each a server", FIELD(hbm.channels)},
      {"hbm.bandwidth_gb_per_s", "GB/s", kGBps, K::positive, true, 0, "Peak bandwidth (datasheet), split evenly over the channels", FIELD(hbm.bandwidth)},
      {"hbm.efficiency", "", 1, K::fraction, false, 1, "Achievable fraction of peak per channel for streaming access (calibrated)", FIELD(hbm.efficiency)},
      {"hbm.tile_efficiency", "", 1, K::fraction, false, 1,
       "Achievable fraction of peak for matrix-unit operand tiles (2-D blocks: short rows spread over DRAM pages; "
       "calibrated; at most efficiency)", FIELD(hbm.tile_efficiency), true, "efficiency"},
      {"hbm.write_efficiency", "", 1, K::fraction, false, 1,
       "Achievable fraction of peak for writes (a fill or an output stream: write-to-read turnarounds, write "
       "recovery; measured with a fill; at most efficiency)", FIELD(hbm.write_efficiency), true, "efficiency"},
      {"hbm.access_latency_ns", "ns", kNs, K::non_negative, false, 0, "Access latency of a request, pipelined", FIELD(hbm.access_latency_s)},
      {"hbm.interleave_bytes", "bytes", 1, K::count, true, 0, "Granule of the address space each channel owns in turn", FIELD(hbm.interleave_bytes)},

      {"dma.max_inflight_bytes", "bytes", 1, K::positive, true, 0,
       "Bytes the DMA engine keeps outstanding: short transfers cannot reach peak (Little's law)", FIELD(dma.max_inflight_bytes)},
      {"dma.request_bytes", "bytes", 1, K::positive, true, 0, "One request to the memory system (at most max_inflight_bytes)", FIELD(dma.request_bytes)},

      {"memory.model", "", 1, K::text, false, 0,
       "What the DMA engine's reads and writes go through (components/memory_models/): hbm, the HBM channels "
       "themselves; l2_hit_rate, the tile buffer in front of them serving memory.hit_rate of each read",
       FIELD(memory.model), false, "hbm"},
      {"memory.hit_rate", "", 1, K::fraction, false, 0,
       "l2_hit_rate: the share of each read's bytes the tile buffer (chip.tile_buffer) serves at its bandwidth and "
       "latency; the rest, and every write, goes on to HBM", FIELD(memory.hit_rate), false},

      {"onchip.NAME.capacity_bytes", "bytes", 1, K::positive, true, 0, "Capacity of an on-chip memory (L2, shared memory, CMEM, ...)", nullptr},
      {"onchip.NAME.bandwidth_gb_per_s", "GB/s", kGBps, K::positive, true, 0,
       "Its aggregate bandwidth. The tile buffer (chip.tile_buffer) serves the reads of operands resident in it at this "
       "rate: the kernel tables' calls whose working set the benchmark keeps in the L2", nullptr},
      {"onchip.NAME.latency_ns", "ns", kNs, K::non_negative, false, 0,
       "Time from a read request to its data when this memory serves it (pipelined), for the tile buffer's resident reads",
       nullptr, true, "hbm.access_latency_ns"},
      {"onchip.NAME.resident_share", "", 1, K::fraction, false, 1,
       "Share of the capacity a working set read again and again can fill and still be served from this memory "
       "(hashed sets and partitions hold less than the whole; the tile buffer's resident reads)", nullptr},

      {"links.kind", "", 1, K::text, true, 0, "Link family: nvlink4, ici, xgmi, ... (names it; links.fabric says how chips are joined)", FIELD(links.kind)},
      {"links.fabric", "", 1, K::text, false, 0,
       "How the links join the chips, which picks a multi-chip run's default topology: switch (switch:N, NVLink with "
       "NVSwitch), mesh (mesh:N, a link to every peer, as Infinity Fabric) or torus (rings and tori, TPU ICI)",
       FIELD(links.fabric), false, "torus when kind is ici, else switch"},
      {"links.model", "", 1, K::text, false, 0,
       "The links' model (components/link_models/, or a library's: --plugin): array, each link carrying one transfer after "
       "another",
       FIELD(links.model.name), false, "array"},
      {"links.count", "", 1, K::count, true, 0, "Links per chip (on a switch: the chip's port)", FIELD(links.count)},
      {"links.bandwidth_gb_per_s", "GB/s", kGBps, K::positive, true, 0, "Bandwidth per link per direction", FIELD(links.bandwidth_per_direction)},
      {"links.efficiency", "", 1, K::fraction, false, 1, "Achievable fraction of link bandwidth (calibrated)", FIELD(links.efficiency)},
      {"links.in_switch_reduction", "", 1, K::flag, false, 0, "The switch can reduce (NVLink SHARP)", FIELD(links.in_switch_reduction)},
      {"links.switch_reduction_gb_per_s", "GB/s", kGBps, K::positive, false, 0,
       "Bytes per second per port the switch reduces (needs in_switch_reduction)", FIELD(links.switch_reduction_rate), false,
       "port speed"},
      {"links.latency_ns", "ns", kNs, K::non_negative, false, 0, "Latency of a transfer over one link (or through the switch)", FIELD(links.latency_s)},

      {"network.chips_per_node", "", 1, K::count, true, 0, "Chips on one node's NVLink switch (the nodes the network joins)", FIELD(network.chips_per_node)},
      {"network.nics_per_chip", "", 1, K::count, false, 1, "NICs per chip on the scale-out network", FIELD(network.nics_per_chip)},
      {"network.nic_bandwidth_gb_per_s", "GB/s", kGBps, K::positive, true, 0, "Bandwidth per NIC per direction", FIELD(network.nic_bandwidth)},
      {"network.latency_ns", "ns", kNs, K::non_negative, false, 0, "Latency of one traversal of the network, NIC to NIC", FIELD(network.latency_s)},
      {"network.efficiency", "", 1, K::fraction, false, 1, "Achievable fraction of a NIC's bandwidth", FIELD(network.efficiency)},
      {"network.shape", "", 1, K::text, false, 0,
       "rail (rail-optimised: NIC i of every node on rail switch i; PXN crosses rails over NVLink) or fat_tree", FIELD(network.shape),
       true, "rail"},
      {"network.oversubscription", "x", 1, K::positive, false, 1,
       "fat_tree: a leaf's bandwidth down to its NICs over its bandwidth up to the spine (1: non-blocking)", FIELD(network.oversubscription),
       false},

      {"collectives.launch_ns", "ns", kNs, K::non_negative, false, 0, "NCCL: per call, kernel launch and the ranks' first handshake", FIELD(collectives.launch_s), false},
      {"collectives.ll_efficiency", "", 1, K::fraction, false, 1, "LL protocol: fraction of the link the payload gets (8 B of flag per 8 B)", FIELD(collectives.ll_efficiency), false},
      {"collectives.ll128_efficiency", "", 1, K::fraction, false, 1, "LL128 protocol: fraction of the link the payload gets (8 B of flag per 128 B)", FIELD(collectives.ll128_efficiency), false},
      {"collectives.simple_efficiency", "", 1, K::fraction, false, 1, "Simple protocol: fraction of the link the payload gets", FIELD(collectives.simple_efficiency), false},
      {"collectives.ll_step_ns", "ns", kNs, K::non_negative, false, 0, "LL: latency a ring step adds to the switch traversal", FIELD(collectives.ll_step_s), false},
      {"collectives.ll128_step_ns", "ns", kNs, K::non_negative, false, 0, "LL128: latency a ring step adds", FIELD(collectives.ll128_step_s), false},
      {"collectives.simple_step_ns", "ns", kNs, K::non_negative, false, 0, "Simple: latency a step adds (flag write, fence, poll)", FIELD(collectives.simple_step_s), false},
      {"collectives.ll_channel_bytes", "bytes", 1, K::non_negative, false, 0, "LL: bytes of the call per channel before NCCL adds a channel", FIELD(collectives.ll_channel_bytes), false},
      {"collectives.ll128_channel_bytes", "bytes", 1, K::non_negative, false, 0, "LL128: bytes per channel before NCCL adds a channel", FIELD(collectives.ll128_channel_bytes), false},
      {"collectives.simple_channel_bytes", "bytes", 1, K::non_negative, false, 0, "Simple: bytes per channel before NCCL adds a channel", FIELD(collectives.simple_channel_bytes), false},
      {"collectives.channels", "", 1, K::count, false, 0, "Most channels (CTAs) NCCL runs a collective on (0: no limit)", FIELD(collectives.channels), false},
      {"collectives.channel_gb_per_s", "GB/s", kGBps, K::non_negative, false, 0, "Bytes per second one channel moves (0: no limit)", FIELD(collectives.channel_bandwidth), false},
      {"collectives.nvls_latency_ns", "ns", kNs, K::non_negative, false, 0, "NVLS all-reduce: extra per-call latency of the multicast path", FIELD(collectives.nvls_latency_s), false},
      {"collectives.ring_copy_gb_per_s", "GB/s", kGBps, K::non_negative, false, 0,
       "NCCL ring: rate of the once-per-call copy of a rank's own shard, not overlapped with the links (0: free)", FIELD(collectives.ring_copy_bandwidth), false},
      {"collectives.p2p_ll_max_bytes", "bytes", 1, K::non_negative, false, 0, "Point-to-point (all-to-all): LL up to this many bytes per peer, then Simple", FIELD(collectives.p2p_ll_max_bytes), false},
      {"collectives.p2p_peer_ns", "ns", kNs, K::non_negative, false, 0, "Point-to-point: cost of posting one peer's send and receive", FIELD(collectives.p2p_peer_s), false},
      {"collectives.p2p_efficiency", "", 1, K::fraction, false, 1, "Point-to-point copies: achievable fraction of the port", FIELD(collectives.p2p_efficiency), false},
      {"collectives.p2p_simple_step_ns", "ns", kNs, K::non_negative, false, 0,
       "Point-to-point (all-to-all) with Simple: latency a step adds, where it differs from a ring's (0: simple_step_ns)",
       FIELD(collectives.p2p_simple_step_s), false},
      {"collectives.trtllm_launch_ns", "ns", kNs, K::non_negative, false, 0, "TensorRT-LLM custom all-reduce: launch and barrier", FIELD(collectives.trtllm_launch_s), false},
      {"collectives.trtllm_twoshot_ns", "ns", kNs, K::non_negative, false, 0, "TensorRT-LLM two-shot: its second barrier and pass", FIELD(collectives.trtllm_twoshot_s), false},
      {"collectives.trtllm_max_bytes", "bytes", 1, K::non_negative, false, 0, "TensorRT-LLM: largest buffer its custom all-reduce takes (above: NCCL)", FIELD(collectives.trtllm_max_bytes), false},
      {"collectives.vllm_launch_ns", "ns", kNs, K::non_negative, false, 0, "vLLM custom all-reduce (CUDA graph): launch and barrier", FIELD(collectives.vllm_launch_s), false},
      {"collectives.vllm_twoshot_ns", "ns", kNs, K::non_negative, false, 0, "vLLM two-shot: its second barrier and pass", FIELD(collectives.vllm_twoshot_s), false},
      {"collectives.vllm_max_bytes", "bytes", 1, K::non_negative, false, 0, "vLLM: largest buffer its custom all-reduce takes (above: NCCL)", FIELD(collectives.vllm_max_bytes), false},
      {"collectives.custom_efficiency", "", 1, K::fraction, false, 1, "Custom all-reduce copies: achievable fraction of the port", FIELD(collectives.custom_efficiency), false},

      {"pim.internal_bandwidth_factor", "x", 1, K::positive, true, 0,
       "Bank-side bandwidth of a near-memory unit over its channel's external bandwidth", FIELD(pim.internal_bandwidth_factor)},
      {"pim.flops_per_clock", "FLOP/clock", 1, K::positive, true, 0, "Per channel's near-memory unit, bf16", FIELD(pim.flops_per_clock)},
      {"pim.clock_mhz", "MHz", kMHz, K::positive, true, 0, "Near-memory units' clock", FIELD(pim.clock_hz)},
      {"pim.max_rows", "", 1, K::count, true, 0, "GEMMs with at most this many rows go to the near-memory units (--near-memory auto)", FIELD(pim.max_rows)},
      {"pim.step_bytes", "bytes", 1, K::positive, true, 0, "Weights per channel per step (simulation granularity)", FIELD(pim.step_bytes)},

      {"energy.static_w", "W", 1, K::non_negative, true, 0,
       "Board power with every unit idle (leakage, clocks, memory refresh), drawn for the whole run", FIELD(energy.static_w)},
      {"energy.tdp_w", "W", 1, K::non_negative, false, 0,
       "The board's power limit: where the matrix units at their full 16-bit rate would draw more (static power "
       "included), the matrix clock falls to where they do not, in place of matrix.sustained_clock_mhz (0: no limit)",
       FIELD(energy.tdp_w), false},
      {"energy.matrix_pj_per_flop", "pJ/FLOP", kPj, K::non_negative, true, 0,
       "Matrix units' energy per FLOP they spend (padding included) at the 16-bit rate; a dtype at r times that rate "
       "(matrix.dtype_rate) costs 1/r of it per FLOP (the units draw the same power per clock)",
       FIELD(energy.matrix_j_per_flop)},
      {"energy.vector_pj_per_flop", "pJ/FLOP", kPj, K::non_negative, true, 0, "Vector units' (CUDA cores') energy per FLOP",
       FIELD(energy.vector_j_per_flop)},
      {"energy.hbm_pj_per_bit", "pJ/bit", kPj, K::non_negative, true, 0, "One bit read from or written to HBM, the I/O included",
       FIELD(energy.hbm_j_per_bit)},
      {"energy.onchip_pj_per_bit", "pJ/bit", kPj, K::non_negative, false, 0,
       "One bit of an operand read where it is resident in the tile buffer (chip.tile_buffer: the L2)", FIELD(energy.onchip_j_per_bit)},
      {"energy.link_pj_per_bit", "pJ/bit", kPj, K::non_negative, false, 0, "One bit over one chip-to-chip link (each hop of a path)",
       FIELD(energy.link_j_per_bit)},
      {"energy.near_memory_pj_per_bit", "pJ/bit", kPj, K::non_negative, false, 0,
       "One bit the near-memory units read from their banks (no I/O to the chip)", FIELD(energy.near_memory_j_per_bit), false,
       "hbm_pj_per_bit"},

      {"area.matrix_um2_per_mac", "um2/MAC", kUm2, K::positive, true, 0,
       "Silicon of the matrix units per MAC per clock at the 16-bit rate (a tensor core's or MXU's share of the die)",
       FIELD(area.matrix_mm2_per_mac)},
      {"area.vector_um2_per_flop", "um2/FLOP", kUm2, K::positive, true, 0, "Silicon of the vector units per FP32 FLOP per clock",
       FIELD(area.vector_mm2_per_flop)},
      {"area.unit_overhead_mm2", "mm2", 1, K::non_negative, true, 0,
       "Per matrix unit (SM, core), besides its MACs and lanes: control, schedulers, register file, its port to the crossbar",
       FIELD(area.unit_overhead_mm2)},
      {"area.sram_mm2_per_mib", "mm2/MiB", 1, K::positive, true, 0, "On-chip memory ([onchip] capacities) per MiB, periphery included",
       FIELD(area.sram_mm2_per_mib)},
      {"area.hbm_interface_mm2", "mm2", 1, K::non_negative, true, 0, "Per HBM stack (hbm.stacks): its PHY and memory controller",
       FIELD(area.hbm_interface_mm2)},
      {"area.link_interface_mm2", "mm2", 1, K::non_negative, false, 0, "Per chip-to-chip link (links.count): its PHY and controller",
       FIELD(area.link_interface_mm2)},
      {"area.other_mm2", "mm2", 1, K::non_negative, false, 0,
       "The rest of the die: PCIe, media engines, I/O, the units fabricated but not enabled", FIELD(area.other_mm2)},

      {"cost.wafer_usd", "USD", 1, K::positive, true, 0, "One processed wafer of the chip's process node", FIELD(cost.wafer_usd)},
      {"cost.wafer_diameter_mm", "mm", 1, K::positive, false, 300, "The wafer's diameter", FIELD(cost.wafer_diameter_mm)},
      {"cost.defect_density_per_cm2", "1/cm2", kPerCm2, K::non_negative, true, 0,
       "Killer defects per cm2 of the process: with the die's area they set its yield", FIELD(cost.defect_density_per_mm2)},
      {"cost.yield_cluster", "", 1, K::positive, false, 3,
       "Clustering of the defects in the negative-binomial yield model, (1 + area x density / this)^-this", FIELD(cost.yield_cluster)},
      {"cost.hbm_usd_per_gb", "USD/GB", kPerGB, K::non_negative, true, 0, "The memory's price per GB of hbm.capacity_bytes",
       FIELD(cost.hbm_usd_per_byte)},
      {"cost.package_usd", "USD", 1, K::non_negative, false, 0,
       "Packaging (interposer), assembly and test per chip; 0: not counted, as in LLMCompass's die cost", FIELD(cost.package_usd)},

      {"host.launch_interval_ns", "ns", kNs, K::non_negative, true, 0,
       "Host time to launch one op when ops launch one by one (--launch per_op, and prefill_per_op in steps that hold a prefill)", FIELD(host_launch_interval_s), false},
      {"host.link_gb_per_s", "GB/s", kGBps, K::non_negative, false, 0,
       "Chip-to-host link (PCIe) per direction, as copies reach it; 0: none described (serve --kv-preemption swap needs one)",
       FIELD(host_link_bandwidth), false},
      {"host.link_latency_ns", "ns", kNs, K::non_negative, false, 0, "Fixed cost of one copy over the host link (one cudaMemcpyAsync)",
       FIELD(host_link_latency_s), false},
  };
}
#undef FIELD

// "matrix.dtype_rate.fp8" matches "matrix.dtype_rate.DTYPE"; "onchip.l2.capacity_bytes"
// matches "onchip.NAME.capacity_bytes".
bool key_matches(const std::string& pattern, const std::string& key) {
  std::size_t p = 0, k = 0;
  while (p < pattern.size() && k < key.size()) {
    const std::size_t pe = pattern.find('.', p), ke = key.find('.', k);
    const std::string ps = pattern.substr(p, pe - p), ks = key.substr(k, ke - k);
    const bool wildcard = ps == "DTYPE" || ps == "NAME";
    if (!wildcard && ps != ks) return false;
    if ((pe == std::string::npos) != (ke == std::string::npos)) return false;
    if (pe == std::string::npos) return true;
    p = pe + 1;
    k = ke + 1;
  }
  return false;
}


const char* kind_text(ParamKind k) {
  switch (k) {
    case K::positive: return "number > 0";
    case K::non_negative: return "number >= 0";
    case K::fraction: return "fraction in (0, 1]";
    case K::count: return "integer > 0";
    case K::flag: return "true or false";
    case K::text: return "text";
  }
  return "";
}

}  // namespace

ParamRange param_range(const HardwareParam& p) {
  const std::string unit = p.unit;
  const bool zero_ok = p.kind == K::non_negative;
  if (p.kind == K::fraction) return {1e-3, 1, false};  // an efficiency below 0.1% is a typo
  if (unit == "MHz") return {1, 1e5, zero_ok};
  if (unit == "GB/s") return {1e-3, 1e7, zero_ok};
  if (unit == "ns") return {1e-3, 1e9, zero_ok};  // up to 1 s
  if (unit == "bytes") return {1, kMaxSize, zero_ok};
  if (unit == "cycles") return {1, 1e6, zero_ok};
  if (unit == "cycles/element") return {1e-3, 1e4, zero_ok};
  if (unit == "FLOP/clock" || unit == "MAC/clock") return {1e-3, 1e9, zero_ok};
  if (unit == "x" || unit == "x bf16") return {1e-3, 1e3, zero_ok};
  if (unit == "W") return {1e-3, 1e5, zero_ok};
  if (unit == "pJ/FLOP" || unit == "pJ/bit") return {1e-4, 1e4, zero_ok};
  if (unit == "um2/MAC" || unit == "um2/FLOP") return {1e-3, 1e6, zero_ok};
  if (unit == "mm2" || unit == "mm2/MiB") return {1e-6, 1e5, zero_ok};  // a 300 mm wafer is 70,686 mm2
  if (unit == "mm") return {25, 450, zero_ok};
  if (unit == "USD" || unit == "USD/GB") return {1e-3, 1e9, zero_ok};
  if (unit == "1/cm2") return {1e-4, 100, zero_ok};
  if (p.kind == K::positive && unit.empty()) return {1e-3, 1e6, zero_ok};  // a factor
  return {1, 1e6, zero_ok};  // counts
}

std::string ParamRange::text(const std::string& unit) const {
  return (zero_ok ? "0, or " : "") + format_general(lo) + " to " + format_general(hi) + (unit.empty() ? "" : " " + unit);
}

const std::vector<HardwareParam>& hardware_params() {
  static const std::vector<HardwareParam> params = make_params();
  return params;
}

const HardwareParam* find_hardware_param(const std::string& key) {
  for (const HardwareParam& p : hardware_params()) {
    if (key_matches(p.key, key)) return &p;
  }
  return nullptr;
}

const std::vector<OptionalTable>& optional_hardware_tables() {
  static const std::vector<OptionalTable> tables = {
      {"matrix.dtype_efficiency", "every dtype runs at its full rate"},
      {"links", "the chip has no chip-to-chip links: single-chip runs only"},
      {"network", "no scale-out network: runs stay on one node (--nodes and nodes:NxL are refused)"},
      {"arch", "the chip declares no kernel instructions: every flag false (a TPU; a GPU whose kernels take only its native path)"},
      {"pim", "no near-memory compute units"},
      {"energy", "no energy model: runs report no energy or power"},
      {"area", "no area model: runs report no silicon area, nor throughput per mm2"},
      {"cost", "no cost model: runs report no chip cost, nor throughput per dollar (needs [area] for the die)"},
      {"host", "no host launch cost (ops launch as one graph)"},
      {"collectives", "collectives cost only their link transfers (no protocol, launch or channel costs)"},
  };
  return tables;
}

std::string hardware_keys_markdown() {
  std::ostringstream md;
  md << "# Hardware keys\n\n"
        "Every key a hardware file (`configs/hardware/*.toml`) may hold, generated from the one table that\n"
        "declares them (`core/hardware_params.cpp`) by `roofsim hw keys`. A test keeps this file equal to\n"
        "that output. Units are those of the file; the program works in SI units. Unknown keys are errors.\n"
        "`[provenance]` maps any key to where its number comes from. `whatif --set/--scale`, sweeps and\n"
        "the Python module's `Hardware` objects change these keys (friendly names: `compute` scales\n"
        "`matrix.macs_per_clock` and `vector.flops_per_clock`; `hbm.bandwidth`, `links.bandwidth` and\n"
        "`hbm.capacity` name the keys with their units).\n\n"
        "A file may start from another: `base = \"h100_sxm5\"` (a preset name, or a path relative to the\n"
        "file) takes over every key and provenance entry of the base, and the file gives only what\n"
        "differs (tables merge key by key; a key set here drops the base's provenance for it). The\n"
        "hypothetical `h100_2xbw` and `h100_pim` are written so: a comparison with `h100_sxm5` then\n"
        "differs in what the file says and nothing else. An error in a key names the file that set it.\n\n"
        "| key | unit | value | required | default | meaning |\n|---|---|---|---|---|---|\n";
  for (const HardwareParam& p : hardware_params()) {
    std::ostringstream def;
    if (p.default_text) {
      def << p.default_text;
    } else if (!p.required) {
      if (p.kind == K::flag) {
        def << (p.fallback != 0 ? "true" : "false");
      } else {
        def << p.fallback;
      }
    }
    std::string value = kind_text(p.kind);
    if (p.kind != K::flag && p.kind != K::text) value += ": " + param_range(p).text("");
    md << "| `" << p.key << "` | " << p.unit << " | " << value << " | " << (p.required ? "yes" : "no") << " | "
       << def.str() << " | " << p.meaning << " |\n";
  }
  md << "\nTables a file may leave out:\n\n";
  for (const OptionalTable& t : optional_hardware_tables()) md << "- `[" << t.name << "]`: " << t.when_absent << ".\n";
  return md.str();
}

}  // namespace roofsim
