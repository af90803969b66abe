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
#include <exception>
#include <systemc>

namespace roofsim {

class SimulationContext {
 public:
  SimulationContext();
  ~SimulationContext();
  SimulationContext(const SimulationContext&) = delete;
  SimulationContext& operator=(const SimulationContext&) = delete;

  // Runs the kernel until no event is pending. An exception thrown by a process body run
  // through guarded() stops the kernel and is rethrown here, type intact.
  void run();

  // Runs one body of a SystemC process (an SC_METHOD or a callback it calls). An exception
  // would otherwise reach SystemC's own handler, which prints "E549 uncaught exception" and
  // exits 1; here it is kept, the kernel is stopped, and false is returned (stop the body).
  template <class Body>
  static bool guarded(Body&& body) {
    try {
      body();
      return true;
    } catch (...) {
      stop_with(std::current_exception());
      return false;
    }
  }

 private:
  sc_core::sc_simcontext* previous_current_;
  sc_core::sc_simcontext* previous_default_;
  sc_core::sc_simcontext* context_;
  std::exception_ptr error_;  // the first error a process threw

  static void stop_with(std::exception_ptr error);
};

}  // namespace roofsim
