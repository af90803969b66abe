#include "core/provenance.hpp"

namespace roofsim {

const char* provenance_kind_name(ProvenanceKind k) {
  switch (k) {
    case ProvenanceKind::datasheet: return "datasheet";
    case ProvenanceKind::microbenchmark: return "microbenchmark";
    case ProvenanceKind::fit: return "fit";
    case ProvenanceKind::assumption: return "assumption";
  }
  return "assumption";
}

namespace {
bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
bool mentions(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }
}  // namespace

ProvenanceKind provenance_kind(const std::string& text) {
  // Taken over from a base file: the base chip's datasheet figure stays one (a derived chip
  // shares its die's documented facts); its measurements and fits were made on another chip and
  // are assumptions here.
  std::string p = text;
  bool carried = false;
  const std::string carried_prefix = "carried over from ";
  while (starts_with(p, carried_prefix.c_str())) {
    const std::size_t colon = p.find(": ");
    if (colon == std::string::npos) break;
    p = p.substr(colon + 2);
    carried = true;
  }
  // Public documentation: datasheets, secondary sources quoting them, papers and books, and
  // figures derived from those by arithmetic.
  for (const char* doc : {"datasheet", "secondary", "paper", "book", "derived", "unverified"}) {
    if (starts_with(p, doc)) return ProvenanceKind::datasheet;
  }
  if (carried) return ProvenanceKind::assumption;
  if (starts_with(p, "measured")) return ProvenanceKind::microbenchmark;
  // A value fitted to the project's own probes on a lent GPU (bench/gpu) or to one public
  // measurement of the chip (public-cases.csv's MB- rows) is a microbenchmark; fitted to a
  // table of kernels or serving runs, or to published end-to-end runs, a fit.
  if (starts_with(p, "calibrated") || starts_with(p, "fitted") || starts_with(p, "read from")) {
    if (mentions(p, "validation/kernels") || mentions(p, "validation/serving")) return ProvenanceKind::fit;
    if (mentions(p, "bench/gpu")) return ProvenanceKind::microbenchmark;
    if (!mentions(p, ".csv") && mentions(p, "MB-")) return ProvenanceKind::microbenchmark;
    return ProvenanceKind::fit;
  }
  return ProvenanceKind::assumption;
}

const ProvenanceMap::Map& ProvenanceMap::empty() {
  static const Map none;
  return none;
}

void ProvenanceMap::set(const std::string& key, std::string source) {
  // Copies share the entries: a shared table is copied before it is written.
  if (!map_ || map_.use_count() > 1) map_ = std::make_shared<Map>(entries());
  (*map_)[key] = std::move(source);
}

}  // namespace roofsim
