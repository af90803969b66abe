#pragma once
// Token routing of an MoE layer: how many of the tokens' copies (tokens x top-k) each expert
// of one expert-parallel rank receives. The distributions are the ones the public MoE kernel
// tables were measured with (NVIDIA aiconfigurator's collector, collector/helper.py), so a
// simulated row routes as its measurement did.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofsim {

struct MoeRoutingShape {
  std::int64_t tokens = 0, experts = 0, topk = 0, ep = 1;
};

// Balanced routing (`balanced_logits`): with stride = ceil(experts / topk), token t's j-th
// copy goes to expert (t + j * stride) mod experts, or, with fewer tokens than the stride,
// to floor(t * stride / tokens + j * stride) mod experts. Returns the copies of rank 0's
// experts (ranks hold contiguous blocks of experts / ep).
std::vector<std::int64_t> balanced_rank0_loads(const MoeRoutingShape& s);

// Power-law routing (`power_law_logits_v3`, `_generate_power_law_distribution`): every
// expert's load drawn i.i.d. from a power law of exponent `alpha` bounded to [1, 0.8 x tokens]
// (to [0.01, 2] when tokens x top-k <= experts) by its inverse CDF, scaled to tokens x top-k
// and rounded, clamped at `tokens` (a token picks an expert once), the overflow and then the
// rounding's remainder dealt by deal_round_robin. Returns every expert's copies. `draw` seeds
// the draw (deterministic and portable: mt19937_64's sequence is fixed by the standard and the
// conversion to [0, 1) is ours).
std::vector<std::int64_t> power_law_loads(const MoeRoutingShape& s, double alpha, std::uint64_t draw);

// The copies of the rank whose experts carry the most (the first on ties): the rank the
// benchmark measures (it swaps that rank's experts into rank 0's place).
std::vector<std::int64_t> busiest_rank_loads(const std::vector<std::int64_t>& loads, const MoeRoutingShape& s);

// `copies` added to (step +1) or taken from (step -1) `loads` one at a time, rank by rank in
// turn, each to the rank's least loaded expert below `tokens` (or from its most loaded above
// 0), the first such expert on ties, until all are placed or no rank can take one
// (`_round_robin_adjust_per_rank`). Worked out in closed form: millions of copies cost no more
// than a few.
void deal_round_robin(std::vector<std::int64_t>& loads, const MoeRoutingShape& s, std::int64_t copies, std::int64_t step);

// The benchmark times power-law routing over this many draws and reports their mean.
constexpr int kPowerLawDraws = 5;

// How a model run routes its MoE layers' tokens: `uniform`, each layer's copies spread evenly
// over the experts they touch in expectation (model runs' default); or as the benchmark
// routes: `balanced` (rank 0 of balanced_rank0_loads) or `power_law:A` (the busiest rank of
// power_law_loads; layer l takes draw l mod kPowerLawDraws).
struct MoeRouting {
  enum class Kind { uniform, balanced, power_law };
  Kind kind = Kind::uniform;
  double alpha = 0;  // power_law's exponent, in (0, 10]
  bool operator==(const MoeRouting& o) const { return kind == o.kind && alpha == o.alpha; }
};
// "uniform", "balanced" or "power_law:A" with A in (0, 10]; nullopt otherwise.
std::optional<MoeRouting> parse_moe_routing(const std::string& text);
std::string moe_routing_name(const MoeRouting& r);
// What parse_moe_routing takes, for messages.
inline const char* kMoeRoutingForms = "uniform, balanced or power_law:A with A in (0, 10] (e.g. power_law:1.2)";

// The copies of each expert of the rank the routing measures (balanced: rank 0; power law: the
// busiest), for draw `draw`. Not for uniform routing.
std::vector<std::int64_t> routed_loads(const MoeRouting& r, const MoeRoutingShape& s, std::uint64_t draw);

// A grouped GEMM over per-expert loads: the experts with copies (`touched`, at least 1: the
// kernels run on nothing when none land), the copies, and the rows per expert it computes:
// the copies averaged over the touched experts, or over their padded total when each expert's
// rows pad to tiles of `tile_rows` (rows averaged when loads differ).
struct GroupedRows {
  std::int64_t touched = 1, copies = 1, rows = 1;
};
GroupedRows grouped_rows(const std::vector<std::int64_t>& loads, std::int64_t tile_rows);
// The rows of a CUTLASS grouped GEMM's tiles, to which each expert's rows pad.
constexpr std::int64_t kMoeTileRows = 64;
// The row blocks of weight-only experts' kernels for few tokens per expert (Triton's MoE for
// Hopper's mxfp4, Marlin): an expert's rows pad to these. The tiles' MMAs pad to the unit's
// matrix.weight_only_moe_min_tile_rows, which the stacks set to the same 16.
constexpr std::int64_t kWeightOnlyMoeTileRows = 16;

}  // namespace roofsim
