#pragma once
// NCCL's kernels on a switch, as mechanisms with the parameters of hw.collectives: a call
// costs a launch; a ring step costs the switch traversal plus its protocol's synchronisation
// and moves its chunk at the port's rate times the protocol's wire efficiency, capped by the
// channels (CTAs) NCCL spreads the call over (more channels for larger calls, each copying at
// a bounded rate); NVLS reduces in the switch; all-to-all and send/receive are point-to-point
// (a cost per peer posted, LL for small per-peer shares, Simple above). `lower` gives the link
// transfers the simulator runs; the *_s functions are the same mechanisms' closed forms, which
// NCCL's tuner role (choose the fastest algorithm and protocol) uses as its cost model.
#include <optional>
#include <string>
#include <vector>

#include "components/collective_algorithms/common.hpp"

namespace roofsim::nccl {

enum class Proto { ll, ll128, simple };
enum class Route { ring, nvls, p2p };
struct Plan {
  Route route = Route::ring;
  Proto proto = Proto::simple;
};

std::string proto_name(Proto p);
std::string plan_name(const Plan& p);

// The channels NCCL runs a call of `bytes` on with protocol `pr`, and how one transfer of it
// goes on the wire.
int channels(const CollectiveKernelSpec& c, Proto pr, double bytes);
Wire wire(const CollectiveKernelSpec& c, Proto pr, double bytes);
// A ring call's copy of the rank's own shard (collectives.ring_copy_gb_per_s), not overlapped
// with the link transfers; 0 for other collectives or when free.
double ring_copy_s(const CollectiveKernelSpec& c, CollectiveKind k, int p, double bytes);
// A switch port's rate (bytes/s) for that wire.
double port_rate(const HardwareSpec& hw, const Wire& w);

// Closed forms, one collective alone on idle links of a switch.
double ring_s(const HardwareSpec& hw, CollectiveKind k, int p, double bytes, Proto pr);
double nvls_s(const HardwareSpec& hw, int p, double bytes);
double p2p_s(const HardwareSpec& hw, CollectiveKind k, int p, double bytes);
double plan_s(const HardwareSpec& hw, CollectiveKind k, int p, double bytes, const Plan& plan);

// What the tuner picks among what the hardware and collective allow: ring with each protocol
// (or only `only` when given), NVLS for all-reduce where the switch reduces (and `nvls`);
// all-to-all and sendrecv are point-to-point.
Plan best_plan(const HardwareSpec& hw, CollectiveKind k, int p, double bytes, DType dtype, bool allow_ring, bool allow_nvls,
               const Proto* only = nullptr);
// Whether NVLink SHARP reduces this format (multimem reductions: 16- and 32-bit floats).
bool switch_reduces(DType dtype);

std::vector<CollectiveStream> lower(const HardwareSpec& hw, CollectiveKind k, int p, std::uint64_t bytes, const Plan& plan);

}  // namespace roofsim::nccl
