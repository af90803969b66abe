#pragma once
// A fresh SystemC kernel for one simulation, so that a process can run any number of them one
// after another (sweeps, what-ifs, serving, the Python module).
//
// SystemC 2.3 keeps all kernel state (object hierarchy, processes, events, time, the time
// resolution) in one sc_simcontext, reached through two globals (sc_curr_simcontext and
// sc_default_global_context) and made lazily on first use. By default a process elaborates
// and runs once: after sc_start no module may be added (E529). A SimulationContext makes a new
// sc_simcontext current, sets roofsim's 1 ps resolution in it, and on destruction deletes it
// and puts back whatever was current before. Every module of the simulation must be created
// after the context and destroyed before it: declare the context first in the scope that owns
// the modules. Contexts do not nest or overlap (one simulation at a time per process); roofsim
// uses no SC_THREAD, so no coroutine stacks outlive a context.
#include <systemc>

namespace roofsim {

class SimulationContext {
 public:
  SimulationContext();
  ~SimulationContext();
  SimulationContext(const SimulationContext&) = delete;
  SimulationContext& operator=(const SimulationContext&) = delete;

  // Runs the kernel until no event is pending.
  void run();

 private:
  sc_core::sc_simcontext* previous_current_;
  sc_core::sc_simcontext* previous_default_;
  sc_core::sc_simcontext* context_;
};

}  // namespace roofsim
