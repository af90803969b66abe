#pragma once
// What kind of source a hardware parameter's provenance names, so that a chip built from public
// numbers can be audited (`roofsim hw show NAME --provenance`): a datasheet figure (or one
// derived from datasheet figures, a paper's or a book's), a microbenchmark (measured on the chip,
// or fitted to one public measurement of it), a fit (calibrated on measured kernel or serving
// tables), or an assumption (carried over from another chip, estimated, or given no source).
#include <array>
#include <map>
#include <memory>
#include <string>

namespace roofsim {

enum class ProvenanceKind { datasheet, microbenchmark, fit, assumption };

// The kinds in the order they are reported.
constexpr std::array<ProvenanceKind, 4> kProvenanceKinds = {ProvenanceKind::datasheet, ProvenanceKind::microbenchmark,
                                                           ProvenanceKind::fit, ProvenanceKind::assumption};

const char* provenance_kind_name(ProvenanceKind k);

// Read from the entry's leading word, as the hardware files write them ("datasheet: ...",
// "measured on an H200 ...", "calibrated: MB-A100-MAMF-BF16 ...", "assumed: ..."); an empty
// entry (no source given) is an assumption. An entry taken over from a base file ("carried over
// from h100_sxm5: ...") keeps a datasheet figure's kind; anything else measured or fitted on the
// base chip is an assumption for this one.
ProvenanceKind provenance_kind(const std::string& provenance);

// A hardware description's provenance entries (key path -> where its number comes from), shared
// by every copy of the description: a HardwareSpec is copied into each simulated serving pass
// (the pass's result, its chip), and copying some 150 entries with their texts each time was
// about 5% of an exact-shapes serve run. Written while a file loads; a copy written to detaches.
class ProvenanceMap {
 public:
  using Map = std::map<std::string, std::string>;
  using const_iterator = Map::const_iterator;
  const Map& entries() const { return map_ ? *map_ : empty(); }
  const_iterator begin() const { return entries().begin(); }
  const_iterator end() const { return entries().end(); }
  const_iterator find(const std::string& key) const { return entries().find(key); }
  std::size_t count(const std::string& key) const { return entries().count(key); }
  std::size_t size() const { return entries().size(); }
  const std::string& at(const std::string& key) const { return entries().at(key); }
  void set(const std::string& key, std::string source);

 private:
  static const Map& empty();
  std::shared_ptr<Map> map_;  // null: no entries
};

}  // namespace roofsim
