// Bad configuration gets a clear error naming file, line and key path; good ones load.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/parse.hpp"
#include "core/provenance.hpp"
#include "tests/test_util.hpp"
#include "workloads/model.hpp"

using namespace roofsim;
using namespace roofsim::test;

namespace {

// Loads a mutated H100 preset and returns the error message (empty when it loaded).
std::string hw_error(const std::string& from, const std::string& to, long* line = nullptr,
                     std::string* key = nullptr) {
  std::string text = replace_once(preset_text("hardware", "h100_sxm5"), from, to);
  REQUIRE(text.rfind("REPLACE_FAILED", 0) != 0);
  std::string path = write_temp(text, "hw");
  try {
    load_hardware_file(path);
  } catch (const ConfigError& e) {
    if (line) *line = e.line();
    if (key) *key = e.key_path();
    std::string msg = e.what();
    REQUIRE(msg.find(path) == 0);  // every message starts with the file
    std::remove(path.c_str());
    return msg;
  }
  std::remove(path.c_str());
  return "";
}

long line_of(const std::string& text, const std::string& needle) {
  auto pos = text.find(needle);
  return 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

}  // namespace

TEST_CASE("the unmodified preset loads", "[config]") {
  CHECK(hw_error("units = 132", "units = 132") == "");
}

TEST_CASE("a TOML syntax error names the file and line", "[config]") {
  long line = 0;
  std::string msg = hw_error("units = 132", "units = = 132", &line);
  CHECK_THAT(msg, Catch::Contains("TOML syntax error"));
  CHECK(line == line_of(preset_text("hardware", "h100_sxm5"), "units = 132"));
}

TEST_CASE("an unknown key is an error naming its path and line", "[config]") {
  long line = 0;
  std::string key;
  std::string msg = hw_error("units = 132\n", "units = 132\nunits_typo = 4\n", &line, &key);
  CHECK(key == "matrix.units_typo");
  CHECK_THAT(msg, Catch::Contains("unknown key"));
  CHECK(line == line_of(preset_text("hardware", "h100_sxm5"), "units = 132") + 1);
}

TEST_CASE("an unknown table is an error", "[config]") {
  std::string key;
  hw_error("[vector]", "[vectors]", nullptr, &key);
  // [vector] is now missing, which is reported first, or [vectors] is unknown: either names it.
  CHECK((key == "vector" || key == "vectors"));
}

TEST_CASE("a wrong type is an error that says what was expected", "[config]") {
  std::string key;
  std::string msg = hw_error("units = 132", "units = \"many\"", nullptr, &key);
  CHECK(key == "matrix.units");
  CHECK_THAT(msg, Catch::Contains("expected a positive integer, got a string"));
}

TEST_CASE("a missing required key is named", "[config]") {
  std::string key;
  std::string msg = hw_error("clock_mhz = 1830\n", "", nullptr, &key);
  CHECK(key == "matrix.clock_mhz");
  CHECK_THAT(msg, Catch::Contains("missing required key"));
}

TEST_CASE("zero and negative sizes are errors", "[config]") {
  std::string key;
  CHECK_THAT(hw_error("units = 132", "units = 0", nullptr, &key), Catch::Contains("positive"));
  CHECK(key == "matrix.units");
  CHECK_THAT(hw_error("bandwidth_gb_per_s = 3350", "bandwidth_gb_per_s = -3350", nullptr, &key),
             Catch::Contains("expected a positive number, got -3350"));
  CHECK(key == "hbm.bandwidth_gb_per_s");
  CHECK_THAT(hw_error("capacity_bytes = 80e9", "capacity_bytes = 0.0", nullptr, &key),
             Catch::Contains("positive"));
  CHECK(key == "hbm.capacity_bytes");
  CHECK_THAT(hw_error("access_latency_ns = 500", "access_latency_ns = -1", nullptr, &key),
             Catch::Contains(">= 0"));
  CHECK_THAT(hw_error("efficiency = 0.94", "efficiency = 1.5", nullptr, &key),
             Catch::Contains("fraction in (0, 1]"));
  CHECK_THAT(hw_error("capacity_bytes = 80e9", "capacity_bytes = nan", nullptr, &key),
             Catch::Contains("finite"));
}

TEST_CASE("values that contradict each other are errors", "[config]") {
  std::string key;
  CHECK_THAT(hw_error("sustained_clock_mhz = 1410", "sustained_clock_mhz = 2000", nullptr, &key),
             Catch::Contains("must not exceed clock_mhz"));
  CHECK_THAT(hw_error("tile_buffer = \"l2\"", "tile_buffer = \"l3\"", nullptr, &key),
             Catch::Contains("not a table under [onchip]"));
  CHECK(key == "chip.tile_buffer");
  CHECK_THAT(hw_error("kind = \"tensor_core\"", "kind = \"gpu\"", nullptr, &key),
             Catch::Contains("expected one of \"systolic\", \"tensor_core\""));
  CHECK_THAT(hw_error("fp8 = 2", "fp9 = 2", nullptr, &key), Catch::Contains("unknown dtype"));
  CHECK(key == "matrix.dtype_rate.fp9");
  CHECK_THAT(hw_error("\"links.kind\" = \"datasheet", "\"links.kinds\" = \"datasheet",
                      nullptr, &key),
             Catch::Contains("provenance for a key that the file does not have"));
}

TEST_CASE("a kernel's start and drain stated in cycles is paid at the chip's own SM clock, in ns or cycles but not both", "[config]") {
  // The H100 states its calibrated 1630 ns as cycles of its 1.98 GHz boost clock: the same time.
  const HardwareSpec h100 = load_hardware("h100_sxm5");
  CHECK(h100.op_overhead_cycles == Approx(3227.4));
  CHECK(h100.op_overhead_s == 1630e-9);
  // The A100 carries the count, not the time: its 1.41 GHz pays more for it.
  const HardwareSpec a100 = load_hardware("a100_sxm4_80gb");
  CHECK(a100.op_overhead_s == Approx(3227.4 / 1.41e9));
  CHECK(a100.op_overhead_s > h100.op_overhead_s * 1.35);
  // Its provenance is the count's, said as derived from it.
  CHECK_THAT(a100.provenance.at("chip.op_overhead_ns"), Catch::Contains("[chip.op_overhead_cycles at vector.clock_mhz]"));
  // Another clock in the same file, another time.
  const std::string slower = write_temp(replace_once(preset_text("hardware", "h100_sxm5"), "clock_mhz = 1980", "clock_mhz = 990"), "hw");
  CHECK(load_hardware_file(slower).op_overhead_s == Approx(2 * 1630e-9));
  std::remove(slower.c_str());
  // Both units at once is a located error.
  std::string key;
  long line = 0;
  CHECK_THAT(hw_error("op_overhead_cycles = 3227.4", "op_overhead_cycles = 3227.4\nop_overhead_ns = 1630", &line, &key),
             Catch::Contains("give one of them"));
  CHECK(key == "chip.op_overhead_cycles");
  CHECK(line == 10);
}

TEST_CASE("each GPU generation declares its kernel instructions, and a kernel key needs the instruction its kernel is built on", "[config]") {
  const HardwareSpec a100 = load_hardware("a100_sxm4_80gb"), h100 = load_hardware("h100_sxm5"), b200 = load_hardware("b200");
  const HardwareSpec h200 = load_hardware("h200_sxm"), tpu = load_hardware("tpu_v4");
  CHECK(a100.matrix.arch.mma_sync);
  CHECK_FALSE(a100.matrix.arch.wgmma);
  CHECK_FALSE(a100.matrix.arch.tma);
  CHECK((h100.matrix.arch.wgmma && h100.matrix.arch.tma && !h100.matrix.arch.tcgen05));
  CHECK(h200.matrix.arch.wgmma);  // through its base
  CHECK((b200.matrix.arch.tcgen05 && b200.matrix.arch.tma && !b200.matrix.arch.wgmma));
  CHECK_FALSE((tpu.matrix.arch.mma_sync || tpu.matrix.arch.wgmma || tpu.matrix.arch.tma || tpu.matrix.arch.tcgen05));
  // The H100 without wgmma keeps none of the kernel keys built on it: each is a located error.
  std::string key;
  long line = 0;
  const std::string text = preset_text("hardware", "h100_sxm5");
  CHECK_THAT(hw_error("wgmma = true", "wgmma = false", &line, &key), Catch::Contains("needs an asynchronous MMA: arch.wgmma or arch.tcgen05"));
  CHECK(key == "matrix.exp_exposed_share");
  CHECK(line == line_of(text, "exp_exposed_share = 0.8"));
  CHECK_THAT(hw_error("tma = true", "tma = false", nullptr, &key), Catch::Contains("needs arch.tma = true"));
  CHECK(key == "matrix.block_scaled_oob_row_cycles");
  CHECK_THAT(hw_error("mma_sync = true", "mma_sync = false", nullptr, &key), Catch::Contains("needs arch.mma_sync"));
  CHECK(key == "matrix.mma_sync_rate");
  CHECK_THAT(hw_error("tma = true", "tma = true\ncp_async = true", &line, &key), Catch::Contains("unknown"));
  CHECK(key == "arch.cp_async");
  CHECK(line == line_of(text, "tma = true") + 1);
  CHECK_THAT(hw_error("wgmma = true", "wgmma = 1", nullptr, &key), Catch::Contains("wgmma"));
  // A systolic array has no GPU instructions.
  const std::string tpu_path = write_temp(preset_text("hardware", "tpu_v4") + "\n[arch]\nwgmma = true\n", "hw");
  CHECK_THROWS_WITH(load_hardware_file(tpu_path), Catch::Contains("arch.wgmma") && Catch::Contains("tensor_core"));
  std::remove(tpu_path.c_str());
}

TEST_CASE("a missing file is an input error, not a crash", "[config]") {
  CHECK_THROWS_AS(load_hardware("/nonexistent/dir/x.toml"), InputError);
  CHECK_THROWS_WITH(load_hardware("no_such_chip"), Catch::Contains("h100_sxm5"));
}

TEST_CASE("model configs are checked too", "[config]") {
  std::string base = preset_text("models", "llama-3-8b");
  auto model_error = [&](const std::string& from, const std::string& to) {
    std::string path = write_temp(replace_once(base, from, to), "model");
    try {
      load_model_file(path);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(model_error("layers = 32", "layers = 32") == "");
  CHECK_THAT(model_error("layers = 32", "layers = -32"), Catch::Contains("model.layers"));
  CHECK_THAT(model_error("kv_heads = 8", "kv_heads = 7"), Catch::Contains("must divide attention_heads"));
  CHECK_THAT(model_error("experts_per_token = 1", "experts_per_token = 2"),
             Catch::Contains("must not exceed experts"));
  CHECK_THAT(model_error("mlp = \"gated\"", "mlp = \"swiglu\""), Catch::Contains("model.mlp"));
  CHECK_THAT(model_error("vocab_size", "vocab_sizes"), Catch::Contains("model.vocab_size"));
}

TEST_CASE("errors name settings in the library's terms, and the CLI shows them as flags", "[config]") {
  const InputError e("${ep} 3 must divide the 8 experts; ${weights_dtype} too");
  CHECK(std::string(e.what()) == "ep 3 must divide the 8 experts; weights_dtype too");
  CHECK(render_setting_names(e.raw(), SettingNames::flag) == "--ep 3 must divide the 8 experts; --weights-dtype too");
  CHECK(render_setting_names("no marks, a stray ${ here", SettingNames::flag) == "no marks, a stray ${ here");
}

TEST_CASE("systolic dataflow keys: bad values and contradictions are located errors", "[config]") {
  auto tpu_error = [](const std::string& from, const std::string& to, std::string* key = nullptr,
                      const std::string& from2 = "", const std::string& to2 = "") {
    std::string text = replace_once(preset_text("hardware", "tpu_v4"), from, to);
    if (!from2.empty()) text = replace_once(text, from2, to2);
    REQUIRE(text.rfind("REPLACE_FAILED", 0) != 0);
    const std::string path = write_temp(text, "hw");
    std::string msg;
    try {
      const HardwareSpec hw = load_hardware_file(path);
      CHECK(!hw.matrix.dataflow.empty());
    } catch (const ConfigError& e) {
      if (key) *key = e.key_path();
      msg = e.what();
      CHECK(msg.find(path) == 0);
    }
    std::remove(path.c_str());
    return msg;
  };
  std::string key;
  CHECK_THAT(tpu_error("dataflow = \"weight_stationary\"", "dataflow = \"diagonal\"", &key),
             Catch::Contains("expected one of \"weight_stationary\", \"output_stationary\", \"input_stationary\""));
  CHECK(key == "matrix.dataflow");
  CHECK_THAT(tpu_error("dataflow = \"weight_stationary\"", "dataflow = \"output_stationary\"\nweight_stationary = true", &key),
             Catch::Contains("leave weight_stationary out"));
  CHECK(key == "matrix.weight_stationary");
  CHECK_THAT(tpu_error("dataflow = \"weight_stationary\"", "dataflow = 5", &key), Catch::Contains("dataflow"));
  CHECK_THAT(tpu_error("weight_load_overlap = true", "weight_load_overlap = \"no\"", &key), Catch::Contains("weight_load_overlap"));
  CHECK(key == "matrix.weight_load_overlap");
  const std::string is_no_load = replace_once(preset_text("hardware", "tpu_v4"), "dataflow = \"weight_stationary\"",
                                              "dataflow = \"input_stationary\"");
  {
    // (The matrix table is read before the provenance that still names the removed key.)
    const std::string path = write_temp(replace_once(is_no_load, "weight_load_cycles = 128\n", ""), "hw");
    try {
      load_hardware_file(path);
      FAIL("input_stationary without weight_load_cycles loaded");
    } catch (const ConfigError& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("weight_load_cycles") && Catch::Contains("missing"));
    }
    std::remove(path.c_str());
  }
  // Output-stationary loads nothing: it needs no weight_load_cycles; the older key still loads.
  CHECK(tpu_error("dataflow = \"weight_stationary\"", "dataflow = \"output_stationary\"").empty());
  CHECK(tpu_error("dataflow = \"weight_stationary\"", "weight_stationary = true", nullptr, "\"matrix.dataflow\" = ",
                  "\"matrix.weight_stationary\" = ")
            .empty());
  CHECK(tpu_error("weight_load_overlap = true", "weight_load_overlap = false").empty());
  // Tensor cores have no dataflow and nothing to overlap.
  CHECK_THAT(hw_error("kind = \"tensor_core\"", "kind = \"tensor_core\"\ndataflow = \"weight_stationary\"", nullptr, &key),
             Catch::Contains("is for kind = \"systolic\""));
  CHECK(key == "matrix.dataflow");
  CHECK_THAT(hw_error("kind = \"tensor_core\"", "kind = \"tensor_core\"\nweight_load_overlap = false", nullptr, &key),
             Catch::Contains("is for a systolic array with a dataflow"));
  CHECK(key == "matrix.weight_load_overlap");
}

TEST_CASE("a comma-separated flag value splits into its parts, empty ones kept", "[config]") {
  CHECK(split_commas("1,2,4") == std::vector<std::string>{"1", "2", "4"});
  CHECK(split_commas("7") == std::vector<std::string>{"7"});
  CHECK(split_commas("") == std::vector<std::string>{""});
  CHECK(split_commas("a,,b,") == std::vector<std::string>{"a", "", "b", ""});
}

TEST_CASE("a hardware file with a base keeps the base's parameters and overrides only what it sets", "[config]") {
  const HardwareSpec h100 = load_hardware("h100_sxm5"), wide = load_hardware("h100_2xbw");
  CHECK(wide.hbm.bandwidth == 2 * h100.hbm.bandwidth);
  CHECK(wide.description != h100.description);
  // Everything else is the H100's, kernel and collective parameters included.
  CHECK(wide.matrix.units == h100.matrix.units);
  CHECK(wide.links.latency_s == h100.links.latency_s);
  CHECK(wide.hbm.tile_efficiency == h100.hbm.tile_efficiency);
  CHECK(wide.provenance.at("hbm.bandwidth_gb_per_s").find("hypothetical") == 0);
  // The sources of what it takes over say where they come from.
  CHECK(wide.provenance.at("hbm.efficiency") == "carried over from h100_sxm5: " + h100.provenance.at("hbm.efficiency"));

  // A base in the same folder, by path; the base's provenance of an overridden key is dropped.
  const std::string base = write_temp(preset_text("hardware", "h100_sxm5"), "hw");
  const std::string name = std::filesystem::path(base).filename().string();
  const std::string derived = write_temp("base = \"" + name + "\"\n[hbm]\nbandwidth_gb_per_s = 5000\n", "hw");
  const HardwareSpec d = load_hardware_file(derived);
  CHECK(d.hbm.bandwidth == 5000e9);
  CHECK(d.provenance.count("hbm.bandwidth_gb_per_s") == 0);

  // An error in a key the base set names the base file and its line; in the derived file, that file.
  const std::string bad_base = write_temp(replace_once(preset_text("hardware", "h100_sxm5"), "units = 132", "units = -1"), "hw");
  const std::string on_bad = write_temp("base = \"" + std::filesystem::path(bad_base).filename().string() + "\"\n", "hw");
  CHECK_THROWS_WITH(load_hardware_file(on_bad), Catch::StartsWith(bad_base + ":" + std::to_string(line_of(preset_text("hardware", "h100_sxm5"), "units = 132"))));
  const std::string bad_here = write_temp("base = \"" + name + "\"\n[hbm]\nbandwidth_gb_per_s = -3\n", "hw");
  CHECK_THROWS_WITH(load_hardware_file(bad_here), Catch::StartsWith(bad_here + ":3") && Catch::Contains("hbm.bandwidth_gb_per_s"));

  // A missing base, a base that is not a string, and a cycle are located errors.
  const std::string missing = write_temp("base = \"nowhere/x.toml\"\n", "hw");
  CHECK_THROWS_WITH(load_hardware_file(missing), Catch::StartsWith(missing + ":1") && Catch::Contains("no such file"));
  const std::string unknown = write_temp("base = \"h100_sxm6\"\n", "hw");
  CHECK_THROWS_WITH(load_hardware_file(unknown), Catch::Contains("unknown hardware preset"));
  const std::string number = write_temp("base = 3\n", "hw");
  CHECK_THROWS_AS(load_hardware_file(number), ConfigError);
  const std::string self = write_temp("", "hw");
  { std::ofstream(self) << "base = \"" << std::filesystem::path(self).filename().string() << "\"\n"; }
  CHECK_THROWS_WITH(load_hardware_file(self), Catch::Contains("leads back"));
  for (const std::string& p : {base, derived, bad_base, on_bad, bad_here, missing, unknown, number, self}) std::remove(p.c_str());
}

TEST_CASE("a provenance entry's kind of source: datasheet, microbenchmark, fit or assumption", "[config]") {
  CHECK(provenance_kind("datasheet: 132 SMs (SPEC-H100-SM)") == ProvenanceKind::datasheet);
  CHECK(provenance_kind("derived: the clock at which 148 SMs give 2.25 PFLOP/s") == ProvenanceKind::datasheet);
  CHECK(provenance_kind("measured on an H200 (bench/gpu/l2_bandwidth.cu)") == ProvenanceKind::microbenchmark);
  CHECK(provenance_kind("calibrated: MB-A100-MAMF-BF16 (271.2 TFLOP/s best matmul)") == ProvenanceKind::microbenchmark);
  CHECK(provenance_kind("calibrated on an H200 (bench/gpu/results/h200/gemm.csv, ...)") == ProvenanceKind::microbenchmark);
  CHECK(provenance_kind("calibrated: validation/kernels/h100/gemm.csv, the 31 bf16 rows") == ProvenanceKind::fit);
  CHECK(provenance_kind("read from validation/kernels/h100/gemm.csv: ... (bench/gpu/results/h200_write_bound.csv)") == ProvenanceKind::fit);
  CHECK(provenance_kind("calibrated: nccl.csv (../shared/validation/kernels/h100, nccl-tests)") == ProvenanceKind::fit);
  CHECK(provenance_kind("assumed: 16 channels per stack") == ProvenanceKind::assumption);
  CHECK(provenance_kind("") == ProvenanceKind::assumption);
  CHECK(provenance_kind("hypothetical: twice the datasheet 3.35 TB/s") == ProvenanceKind::assumption);
  // Taken over from a base file: a datasheet figure stays one, a fit on the base chip does not.
  CHECK(provenance_kind("carried over from h100_sxm5: datasheet: 132 SMs") == ProvenanceKind::datasheet);
  CHECK(provenance_kind("carried over from h100_sxm5: calibrated: validation/kernels/h100 x.csv") == ProvenanceKind::assumption);
  CHECK(provenance_kind("carried over from h100_sxm5: measured on an H100") == ProvenanceKind::assumption);
}

TEST_CASE("a table reader refuses more text than its bound, naming the file and the line it reached", "[config]") {
  std::string text = "a,b\n";
  for (int i = 0; i < 100; ++i) text += "1,2\n";
  const std::string path = write_temp(text, "csv");
  CHECK(read_csv(path).size() == 100);
  // 4 bytes of header and 4 per row: line 17 passes the 64-byte bound.
  CHECK_THROWS_WITH(read_csv(path, 64), Catch::Contains(path + ":17: more than 64 bytes of text"));
  CHECK_NOTHROW(check_table_bytes(path, 1, kMaxTableBytes));
  CHECK_THROWS_WITH(check_table_bytes(path, 7, kMaxTableBytes + 1), Catch::Contains(":7: more than 1 GiB"));
}
