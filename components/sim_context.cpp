#include "components/sim_context.hpp"

#include <stdexcept>

namespace roofsim {

namespace {
bool g_active = false;  // contexts must not overlap: the kernel's globals hold one at a time
SimulationContext* g_current = nullptr;
}

SimulationContext::SimulationContext()
    : previous_current_(sc_core::sc_curr_simcontext), previous_default_(sc_core::sc_default_global_context) {
  if (g_active) throw std::logic_error("SimulationContext: another simulation is still alive in this process");
  g_active = true;
  g_current = this;
  context_ = new sc_core::sc_simcontext;
  sc_core::sc_curr_simcontext = context_;
  sc_core::sc_default_global_context = context_;
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
}

SimulationContext::~SimulationContext() {
  delete context_;
  sc_core::sc_curr_simcontext = previous_current_;
  sc_core::sc_default_global_context = previous_default_;
  g_active = false;
  g_current = nullptr;
}

void SimulationContext::run() {
  sc_core::sc_start();
  if (error_) std::rethrow_exception(error_);
}

void SimulationContext::stop_with(std::exception_ptr error) {
  if (!g_current) std::rethrow_exception(error);
  if (!g_current->error_) g_current->error_ = error;
  sc_core::sc_stop();
}

}  // namespace roofsim
