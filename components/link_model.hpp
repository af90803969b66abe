#pragma once
// A fabric's link model, chosen by name in the hardware file (`[links] model`; "array" by
// default), as the units' are (components/unit_model.hpp). Each is one file in
// components/link_models/ defining register_link_models_NAME(LinkModelRegistry&); a library
// loaded with --plugin may add more. A model builds the fabric's LinkTarget
// (components/link_port.hpp), which every transfer claims its links from.
#include <cstddef>
#include <memory>
#include <string>

#include "components/link_port.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"

namespace roofsim {

class LinkModel {
 public:
  virtual ~LinkModel() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // for the docs and errors
  // `links` links as the topology family lays them out, a module named `module_name` of the
  // fabric under construction.
  virtual std::unique_ptr<LinkTarget> build(const char* module_name, std::size_t links, const HardwareSpec& hw) const = 0;
};

using LinkModelRegistry = Registry<LinkModel>;

// The built-in models and any a plugin registered since.
LinkModelRegistry& link_models();

// The fabric's links as `hw` names their model: ConfigError at the file and line of an unknown one.
std::unique_ptr<LinkTarget> build_links(const char* module_name, std::size_t links, const HardwareSpec& hw);

// Refuses, as build_links would, a hardware file whose [links] model is unknown (`hw show`).
void check_link_model(const HardwareSpec& hw);

// Markdown of every registered model (`roofsim hw keys`).
std::string link_models_markdown();

}  // namespace roofsim
