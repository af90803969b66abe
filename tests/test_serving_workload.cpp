// Serving workloads: length distributions, arrivals, trace files (serving/workload.hpp).
#include <catch2/catch.hpp>

#include "serving/workload.hpp"
