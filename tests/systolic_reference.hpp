#pragma once
// A cycle-stepped model of a rows x cols systolic array, the reference that roofsim's
// per-fold tile cost is checked against (tests/test_systolic.cpp) and timed against
// (bench/systolic_bench.cpp). It computes the product and counts cycles by moving operands
// through the processing elements one clock at a time; no cycle count is written down in it.
//
// The array computes C = A (M x K) x B (K x N) in folds, mapped as SCALE-Sim v2 maps them:
//   weight-stationary:  K over the rows, N over the columns; the rows of A stream (T = M)
//   output-stationary:  M over the rows, N over the columns; K streams (T = K)
//   input-stationary:   K over the rows, M over the columns; the columns of B stream (T = N)
// Loads are not overlapped: a fold first shifts its stationary operand in from the top edge,
// one array row per clock; then the streamed operand enters skewed (row i of the array one
// clock after row i - 1); the next fold starts when no operand is left in the array. Padded
// rows and columns of a partial fold are clocked with zeros, as a fixed array's edge feeders do.
// Output-stationary results leave through a separate read-out path while the next fold runs,
// which SCALE-Sim also assumes (it charges no read-out cycles).
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace roofsim::test {

struct IntMatrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> v;
  IntMatrix() = default;
  IntMatrix(std::int64_t r, std::int64_t c) : rows(r), cols(c), v(static_cast<std::size_t>(r * c), 0) {}
  std::int64_t& at(std::int64_t r, std::int64_t c) { return v[static_cast<std::size_t>(r * cols + c)]; }
  std::int64_t at(std::int64_t r, std::int64_t c) const { return v[static_cast<std::size_t>(r * cols + c)]; }
  // Zero outside the matrix: the padding of a partial fold.
  std::int64_t padded(std::int64_t r, std::int64_t c) const { return r < rows && c < cols ? at(r, c) : 0; }
};

enum class ReferenceFlow { weight_stationary, output_stationary, input_stationary };

class SystolicArrayReference {
 public:
  SystolicArrayReference(int rows, int cols) : rows_(rows), cols_(cols) {}

  // Runs C = A x B fold after fold; returns the cycles from the first load to the last result.
  std::int64_t run(ReferenceFlow flow, const IntMatrix& a, const IntMatrix& b, IntMatrix& c) {
    if (a.cols != b.rows) throw std::invalid_argument("A's columns must be B's rows");
    const std::int64_t m = a.rows, k = a.cols, n = b.cols;
    c = IntMatrix(m, n);
    std::int64_t cycles = 0;
    if (flow == ReferenceFlow::output_stationary) {
      for (std::int64_t n0 = 0; n0 < n; n0 += cols_) {
        for (std::int64_t m0 = 0; m0 < m; m0 += rows_) {
          IntMatrix left(rows_, k), top(k, cols_), acc;  // left: row i streams A[m0 + i][t]
          for (std::int64_t i = 0; i < rows_; ++i)
            for (std::int64_t t = 0; t < k; ++t) left.at(i, t) = a.padded(m0 + i, t);
          for (std::int64_t t = 0; t < k; ++t)
            for (std::int64_t j = 0; j < cols_; ++j) top.at(t, j) = b.padded(t, n0 + j);
          cycles += output_stationary_fold(left, top, acc);
          for (std::int64_t i = 0; i < rows_ && m0 + i < m; ++i)
            for (std::int64_t j = 0; j < cols_ && n0 + j < n; ++j) c.at(m0 + i, n0 + j) += acc.at(i, j);
        }
      }
      return cycles;
    }
    // Weight- and input-stationary are one machine with the operands' roles swapped: a
    // stationary rows x cols block S and T streamed rows X (each `rows` wide) give Y = X S.
    const bool ws = flow == ReferenceFlow::weight_stationary;
    const std::int64_t across = ws ? n : m;  // mapped over the columns
    const std::int64_t streamed = ws ? m : n;
    for (std::int64_t c0 = 0; c0 < across; c0 += cols_) {
      for (std::int64_t k0 = 0; k0 < k; k0 += rows_) {
        IntMatrix s(rows_, cols_), x(streamed, rows_), y;
        for (std::int64_t i = 0; i < rows_; ++i)
          for (std::int64_t j = 0; j < cols_; ++j) s.at(i, j) = ws ? b.padded(k0 + i, c0 + j) : a.padded(c0 + j, k0 + i);
        for (std::int64_t t = 0; t < streamed; ++t)
          for (std::int64_t i = 0; i < rows_; ++i) x.at(t, i) = ws ? a.padded(t, k0 + i) : b.padded(k0 + i, t);
        cycles += stationary_fold(s, x, y);
        for (std::int64_t t = 0; t < streamed; ++t) {
          for (std::int64_t j = 0; j < cols_ && c0 + j < across; ++j) {
            if (ws) {
              c.at(t, c0 + j) += y.at(t, j);
            } else {
              c.at(c0 + j, t) += y.at(t, j);
            }
          }
        }
      }
    }
    return cycles;
  }

 private:
  // A register between two PEs: a value and the streamed row it belongs to (-1: empty).
  struct Reg {
    std::int64_t value = 0;
    std::int64_t tag = -1;
  };
  Reg& reg(std::vector<Reg>& r, std::int64_t i, std::int64_t j) const { return r[static_cast<std::size_t>(i * cols_ + j)]; }
  static bool any_full(const std::vector<Reg>& r) {
    for (const Reg& x : r)
      if (x.tag >= 0) return true;
    return false;
  }

  // Loads S (weights shifted down from the top edge, bottom row first), then streams X's rows:
  // x[t][i] enters PE (i, 0) at stream clock t + i and moves right one PE a clock; PE (i, j)
  // adds x * s[i][j] to the partial sum from above and passes it down; sums leave the bottom.
  std::int64_t stationary_fold(const IntMatrix& s, const IntMatrix& x, IntMatrix& y) const {
    std::vector<std::int64_t> w(static_cast<std::size_t>(rows_ * cols_), 0);
    std::int64_t clock = 0;
    for (std::int64_t step = 0; step < rows_; ++step, ++clock) {
      for (std::int64_t i = rows_ - 1; i > 0; --i)
        for (std::int64_t j = 0; j < cols_; ++j) w[static_cast<std::size_t>(i * cols_ + j)] = w[static_cast<std::size_t>((i - 1) * cols_ + j)];
      for (std::int64_t j = 0; j < cols_; ++j) w[static_cast<std::size_t>(j)] = s.at(rows_ - 1 - step, j);
    }
    y = IntMatrix(x.rows, cols_);
    std::vector<Reg> h(static_cast<std::size_t>(rows_ * cols_)), p(h.size());
    std::int64_t done_rows = 0;  // results that left the bottom edge
    for (std::int64_t c = 0;; ++c) {
      // One clock: every PE takes its left and upper neighbours' registers of the last clock.
      for (std::int64_t i = rows_ - 1; i >= 0; --i) {
        for (std::int64_t j = cols_ - 1; j >= 0; --j) {
          Reg& hr = reg(h, i, j);
          if (j > 0) {
            hr = reg(h, i, j - 1);
          } else {
            const std::int64_t t = c - i;
            hr = t >= 0 && t < x.rows ? Reg{x.at(t, i), t} : Reg{};
          }
          Reg& pr = reg(p, i, j);
          if (hr.tag < 0) {
            pr = Reg{};
            continue;
          }
          const Reg above = i > 0 ? reg(p, i - 1, j) : Reg{0, hr.tag};
          if (above.tag != hr.tag) throw std::logic_error("partial sum and input out of step");
          pr = Reg{above.value + hr.value * w[static_cast<std::size_t>(i * cols_ + j)], hr.tag};
        }
      }
      for (std::int64_t j = 0; j < cols_; ++j) {
        const Reg& out = reg(p, rows_ - 1, j);
        if (out.tag >= 0) {
          y.at(out.tag, j) = out.value;
          ++done_rows;
        }
      }
      const bool fed = c - (rows_ - 1) >= x.rows;  // the last row has had all of X
      if (fed && !any_full(h) && !any_full(p)) {
        if (done_rows != x.rows * cols_) throw std::logic_error("results lost in the array");
        return clock + c;  // clock c did nothing: the array emptied at the end of clock c - 1
      }
    }
  }

  // left[i][t] enters PE (i, 0) at clock t + i and moves right; top[t][j] enters PE (0, j) at
  // clock t + j and moves down; PE (i, j) multiplies the two it holds and accumulates.
  std::int64_t output_stationary_fold(const IntMatrix& left, const IntMatrix& top, IntMatrix& acc) const {
    acc = IntMatrix(rows_, cols_);
    const std::int64_t steps = left.cols;
    std::vector<Reg> h(static_cast<std::size_t>(rows_ * cols_)), v(h.size());
    std::int64_t macs = 0;
    for (std::int64_t c = 0;; ++c) {
      for (std::int64_t i = rows_ - 1; i >= 0; --i) {
        for (std::int64_t j = cols_ - 1; j >= 0; --j) {
          Reg& hr = reg(h, i, j);
          Reg& vr = reg(v, i, j);
          if (j > 0) {
            hr = reg(h, i, j - 1);
          } else {
            const std::int64_t t = c - i;
            hr = t >= 0 && t < steps ? Reg{left.at(i, t), t} : Reg{};
          }
          if (i > 0) {
            vr = reg(v, i - 1, j);
          } else {
            const std::int64_t t = c - j;
            vr = t >= 0 && t < steps ? Reg{top.at(t, j), t} : Reg{};
          }
          if ((hr.tag < 0) != (vr.tag < 0) || hr.tag != vr.tag) throw std::logic_error("operands out of step");
          if (hr.tag >= 0) {
            acc.at(i, j) += hr.value * vr.value;
            ++macs;
          }
        }
      }
      const bool fed = c - (rows_ - 1) >= steps && c - (cols_ - 1) >= steps;  // both edges fed in full
      if (fed && !any_full(h) && !any_full(v)) {
        if (macs != steps * rows_ * cols_) throw std::logic_error("products lost in the array");
        return c;
      }
    }
  }

  std::int64_t rows_, cols_;
};

}  // namespace roofsim::test

#include <string>

namespace roofsim::test {

// A hardware file for one rows x cols systolic array at 1 GHz (a cycle is a nanosecond) whose
// loads do not overlap, with memory so fast and a buffer and work tile so large that a GEMM
// runs as one tile job, as SCALE-Sim runs it: the simulated time is the array's.
inline std::string single_array_hardware(const std::string& dataflow, int rows = 128, int cols = 128) {
  const std::string r = std::to_string(rows), c = std::to_string(cols);
  return "[chip]\ndescription = \"one " + r + "x" + c + " " + dataflow +
         " array\"\ntile_buffer = \"vmem\"\nop_overhead_ns = 0\n"
         "[matrix]\nkind = \"systolic\"\nunits = 1\nclock_mhz = 1000\nmacs_per_clock = " +
         std::to_string(rows * cols) + "\ngranule_m = 1\ngranule_n = " + c + "\ngranule_k = " + r +
         "\nwork_tile_m = 1000000\nwork_tile_n = 1000000\ndataflow = \"" + dataflow +
         "\"\nweight_load_cycles = " + r +
         "\nweight_load_overlap = false\npipeline_latency_cycles = 0\n"
         "[matrix.dtype_rate]\nbf16 = 1\n"
         "[vector]\nunits = 1\nclock_mhz = 1000\nflops_per_clock = 1024\n"
         "[hbm]\ncapacity_bytes = 1_099_511_627_776\nstacks = 1\nchannels = 1\nbandwidth_gb_per_s = 10_000_000\n"
         "access_latency_ns = 0\ninterleave_bytes = 256\n"
         "[dma]\nmax_inflight_bytes = 1_099_511_627_776\nrequest_bytes = 1_073_741_824\n"
         "[onchip.vmem]\ncapacity_bytes = 1_099_511_627_776\nbandwidth_gb_per_s = 10_000_000\n";
}

// SCALE-Sim v2's compute cycles of a GEMM on a rows x cols array (systolic_compute_ws/os/is.py:
// the length of a fold's demand matrices): folds x (load + streamed rows + rows + cols - 2), the
// load being the array's rows for weight- and input-stationary and nothing for output-stationary.
inline std::int64_t scale_sim_cycles(ReferenceFlow flow, std::int64_t m, std::int64_t n, std::int64_t k, int rows,
                                     int cols) {
  auto folds = [](std::int64_t v, int g) { return (v + g - 1) / g; };
  switch (flow) {
    case ReferenceFlow::weight_stationary:
      return folds(k, rows) * folds(n, cols) * (2 * rows + cols + m - 2);
    case ReferenceFlow::output_stationary:
      return folds(m, rows) * folds(n, cols) * (rows + cols + k - 2);
    case ReferenceFlow::input_stationary:
      return folds(k, rows) * folds(m, cols) * (2 * rows + cols + n - 2);
  }
  return 0;
}

}  // namespace roofsim::test
