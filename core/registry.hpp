#pragma once
// A family of named implementations (collective algorithms, attention kernels, topology
// families): each registers itself once, by name, and is looked up by name. T has name().
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace roofsim {

template <typename T>
class Registry {
 public:
  void add(std::unique_ptr<T> item) {
    if (find(item->name())) throw std::logic_error("'" + item->name() + "' registered twice");
    items_.push_back(std::move(item));
  }
  const T* find(const std::string& name) const {
    for (const auto& i : items_) {
      if (i->name() == name) return i.get();
    }
    return nullptr;
  }
  // Throws InputError naming `setting` (a ${setting} mark) and listing the names.
  const T& get(const std::string& name, const std::string& setting) const {
    if (const T* i = find(name)) return *i;
    throw InputError("${" + setting + "} '" + name + "': expected one of " + list());
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& i : items_) out.push_back(i->name());
    return out;
  }
  std::vector<const T*> all() const {
    std::vector<const T*> out;
    for (const auto& i : items_) out.push_back(i.get());
    return out;
  }
  // "a, b, c", for messages and help.
  std::string list() const {
    std::string s;
    for (const auto& i : items_) s += (s.empty() ? "" : ", ") + i->name();
    return s;
  }

 private:
  std::vector<std::unique_ptr<T>> items_;
};

}  // namespace roofsim
