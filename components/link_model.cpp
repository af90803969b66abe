// The link models' registry (declared in link_model.hpp).
#include "components/link_model.hpp"

#include "core/error.hpp"

namespace roofsim {

#define ROOFSIM_LINK_MODEL_FILE(file) void register_link_models_##file(LinkModelRegistry&);
#include "link_models.inc"
#undef ROOFSIM_LINK_MODEL_FILE

LinkModelRegistry& link_models() {
  static LinkModelRegistry registry = [] {
    LinkModelRegistry r;
#define ROOFSIM_LINK_MODEL_FILE(file) register_link_models_##file(r);
#include "link_models.inc"
#undef ROOFSIM_LINK_MODEL_FILE
    return r;
  }();
  return registry;
}

void check_link_model(const HardwareSpec& hw) {
  const UnitModelChoice& choice = hw.links.model;
  if (link_models().find(choice.name)) return;
  throw ConfigError(choice.file_in(hw.source_file), choice.line, "links.model",
                    "unknown model '" + choice.name + "' (expected one of " + link_models().list() + ")");
}

std::unique_ptr<LinkTarget> build_links(const char* module_name, std::size_t links, const HardwareSpec& hw) {
  check_link_model(hw);
  return link_models().find(hw.links.model.name)->build(module_name, links, hw);
}

std::string link_models_markdown() {
  std::string out = "\n## Link models (`[links] model`)\n\n| model | what it is |\n|---|---|\n";
  for (const std::string& name : link_models().names()) out += "| `" + name + "` | " + link_models().find(name)->summary() + " |\n";
  return out;
}

}  // namespace roofsim
