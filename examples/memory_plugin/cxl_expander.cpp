// An out-of-tree memory model, loaded with `roofsim --plugin libroofsim_cxl_expander.so`: the
// chip's HBM behind a CXL link, a what-if for memory the units reach over a port of their own.
// Every request goes on to the HBM channels through this model's own port, after a link hop
// each way; the channels' contention still decides when its bytes arrive. A hardware file picks
// it with
//   [memory]
//   model = "cxl_expander"
//   hop_ns = 250        # its own parameter, declared below (optional: 250 by default)
// Built by examples/CMakeLists.txt against roofsim's headers only: the running roofsim provides
// the rest (components/plugins.hpp).
#include <cmath>
#include <memory>

#include "components/memory_model.hpp"

namespace {

using namespace roofsim;

class CxlExpanderMemory : public MemoryTarget {
 public:
  CxlExpanderMemory(const sc_core::sc_module_name& name, HbmChannels& hbm, Picoseconds hop_ps)
      : MemoryTarget(name), to_hbm_("to_hbm"), hop_ps_(hop_ps) {
    to_hbm_.bind(hbm);
  }

 protected:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override {
    const MemoryRequest* request = nullptr;
    trans.get_extension(request);
    const bool write = trans.get_command() == tlm::TLM_WRITE_COMMAND;
    const Picoseconds served = to_hbm_.transport(write, trans.get_address(), trans.get_data_length(), request ? request->rate : 1.0,
                                                 request ? request->label : -1);
    delay = sc_core::sc_time::from_value(served + 2 * hop_ps_);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }

 private:
  MemoryPort to_hbm_;
  Picoseconds hop_ps_;
};

class CxlExpander : public MemoryModel {
 public:
  std::string name() const override { return "cxl_expander"; }
  std::string summary() const override { return "HBM behind a CXL link, a hop each way (example plugin)"; }
  // One CXL hop (port, retimer, controller): about 250 ns, an assumption of the example.
  std::vector<MemoryModelParam> params() const override {
    return {{"hop_ns", "ns", 250, 0, 1e6, "one way's hop over the link, added twice to every request"}};
  }
  std::unique_ptr<MemoryTarget> build(const char* module_name, const HardwareSpec& hw, HbmChannels& hbm) const override {
    return std::make_unique<CxlExpanderMemory>(module_name, hbm, static_cast<Picoseconds>(std::llround(param(hw, "hop_ns") * 1000)));
  }
};

}  // namespace

extern "C" void roofsim_register_plugin() { roofsim::memory_models().add(std::make_unique<CxlExpander>()); }
