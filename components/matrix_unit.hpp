#pragma once
// One matrix engine (a TPU MXU or a GPU SM's tensor cores) and one vector engine as servers.
#include <cstdint>
#include <memory>

#include "components/matrix_tile.hpp"
#include "components/server.hpp"
#include "core/hardware.hpp"

namespace roofsim {

class MatrixUnit {
 public:
  MatrixUnit(const char* name, const MatrixSpec& spec, SimStats& stats);

  double tile_cycles(const TileShape& t, DType compute) const {
    return matrix_tile_cycles(spec_, t, compute);
  }
  // Runs `cycles` of array work; `done` fires after the pipeline drains.
  void run(double cycles, Server::Callback done);
  Picoseconds cycles_to_ps(double cycles) const;
  const Server& server() const { return *server_; }

 private:
  const MatrixSpec& spec_;
  std::unique_ptr<Server> server_;
  Picoseconds latency_ps_;
};

class VectorUnit {
 public:
  VectorUnit(const char* name, const VectorSpec& spec, SimStats& stats);
  void run(double flops, Server::Callback done);
  const Server& server() const { return *server_; }

 private:
  const VectorSpec& spec_;
  std::unique_ptr<Server> server_;
  Picoseconds latency_ps_;
};

}  // namespace roofsim
