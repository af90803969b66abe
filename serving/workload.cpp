#include "serving/workload.hpp"

#include "core/error.hpp"

namespace roofsim {

LengthDistribution parse_length_distribution(const std::string& text, const std::string& what) {
  (void)text;
  throw InputError(what + ": not implemented yet");
}

std::string describe(const LengthDistribution&) { return "not implemented yet"; }

std::vector<RequestSpec> generate_requests(const WorkloadSpec&) { throw InputError("request generation: not implemented yet"); }

std::vector<RequestSpec> read_trace(const std::string& path) { throw InputError(path + ": traces: not implemented yet"); }

void write_trace(const std::string& path, const std::vector<RequestSpec>&) {
  throw InputError(path + ": traces: not implemented yet");
}

}  // namespace roofsim
