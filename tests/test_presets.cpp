// Every preset loads, and every number in a hardware preset says where it comes from.
#include <catch2/catch.hpp>
#include <functional>
#include <toml++/toml.h>

#include "core/dtype.hpp"
#include "core/hardware.hpp"
#include "core/hardware_params.hpp"
#include "core/hardware_toml.hpp"
#include "core/presets.hpp"
#include "workloads/model.hpp"

using namespace roofsim;

TEST_CASE("the required hardware presets exist and load", "[presets]") {
  auto names = list_presets("hardware");
  for (const char* required : {"h100_sxm5", "h200_sxm", "a100_sxm4_80gb", "tpu_v4", "b200", "gb200_nvl72", "mi300x", "tpu_v5e",
                               "tpu_v5p", "tpu_v6e"}) {
    CHECK(std::find(names.begin(), names.end(), required) != names.end());
  }
  for (const auto& n : names) {
    INFO(n);
    CHECK_NOTHROW(load_hardware(n));
  }
}

TEST_CASE("every hardware number has a provenance entry", "[presets]") {
  for (const auto& n : list_presets("hardware")) {
    toml::table doc = read_hardware_toml(resolve_preset("hardware", n));  // with its base
    const toml::table* prov = doc["provenance"].as_table();
    REQUIRE(prov);
    std::function<void(const toml::table&, const std::string&)> walk =
        [&](const toml::table& t, const std::string& prefix) {
          for (auto&& [k, v] : t) {
            std::string path = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
            // Names are not numbers, but a choice that changes results (links.fabric) is sourced too.
            if (path == "provenance" || (v.is_string() && path != "links.fabric")) continue;
            if (auto sub = v.as_table()) {
              walk(*sub, path);
            } else {
              INFO(n << ": " << path);
              CHECK(prov->contains(path));
            }
          }
        };
    walk(doc, "");
  }
}

TEST_CASE("the required model presets exist and load", "[presets]") {
  for (const char* m : {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b",
                        "mistral-7b", "mixtral-8x7b", "gpt-j-6b", "gpt-3-175b", "palm-540b"}) {
    INFO(m);
    CHECK_NOTHROW(load_model(m));
  }
}

TEST_CASE("every key of every hardware preset is a declared parameter, and only declared ones are", "[presets]") {
  for (const auto& n : list_presets("hardware")) {
    const toml::table doc = read_hardware_toml(resolve_preset("hardware", n));  // with its base
    std::function<void(const toml::table&, const std::string&)> walk = [&](const toml::table& t, const std::string& prefix) {
      for (const auto& [k, v] : t) {
        const std::string key = prefix + std::string(k.str());
        if (key == "provenance") continue;
        if (const toml::table* inner = v.as_table()) {
          walk(*inner, key + ".");
        } else {
          INFO(n << ": " << key);
          CHECK(find_hardware_param(key) != nullptr);
        }
      }
    };
    walk(doc, "");
  }
  CHECK(find_hardware_param("hbm.bandwidth_gb_per_s")->to_si == 1e9);
  CHECK(find_hardware_param("matrix.dtype_rate.fp8") != nullptr);
  CHECK(find_hardware_param("onchip.l2.capacity_bytes") != nullptr);
  CHECK(find_hardware_param("hbm.bandwidth") == nullptr);
  CHECK(find_hardware_param("matrix.dtype_rate") == nullptr);
}

TEST_CASE("the 2026 presets carry their datasheet peaks", "[presets]") {
  // Dense peaks per chip as the vendors publish them (provenance in each file).
  auto peak = [](const char* preset, DType t) { return load_hardware(preset).matrix_peak_flops(t); };
  CHECK(peak("b200", DType::bf16) == Approx(2.25e15).epsilon(0.001));
  CHECK(peak("b200", DType::fp8) == Approx(4.5e15).epsilon(0.001));
  CHECK(peak("b200", DType::nvfp4) == Approx(9e15).epsilon(0.001));
  CHECK(peak("gb200_nvl72", DType::nvfp4) == Approx(10e15).epsilon(0.001));
  CHECK(peak("mi300x", DType::bf16) == Approx(1307.4e12).epsilon(0.001));
  CHECK(peak("mi300x", DType::fp8) == Approx(2614.9e12).epsilon(0.001));
  CHECK(peak("mi300x", DType::nvfp4) == 0);  // no fp4 on CDNA 3
  CHECK(peak("tpu_v5e", DType::bf16) == Approx(197e12).epsilon(0.001));
  CHECK(peak("tpu_v5p", DType::bf16) == Approx(459e12).epsilon(0.001));
  CHECK(peak("tpu_v6e", DType::bf16) == Approx(918e12).epsilon(0.001));
  CHECK(peak("tpu_v6e", DType::int8) == Approx(1836e12).epsilon(0.001));
  CHECK(load_hardware("mi300x").hbm.bandwidth == Approx(5.3e12));
  CHECK(load_hardware("mi300x").links.fabric == "mesh");
  CHECK(load_hardware("gb200_nvl72").hbm.capacity_bytes == Approx(186e9));
}

TEST_CASE("fp4 formats count their scales: nvfp4 4.5 bits a value, mxfp4 4.25", "[presets]") {
  DType t;
  REQUIRE(parse_dtype("nvfp4", t));
  CHECK(t == DType::nvfp4);
  CHECK(dtype_bits(DType::nvfp4) == 4.5);
  CHECK(dtype_bits(DType::mxfp4) == 4.25);
  CHECK(dtype_value_bits(DType::nvfp4) == 4);
  CHECK(dtype_storage_bytes(16, DType::nvfp4) == 9);   // 16 x 4 bits + one E4M3 scale
  CHECK(dtype_storage_bytes(32, DType::mxfp4) == 17);  // 32 x 4 bits + one E8M0 scale
  CHECK(dtype_storage_bytes(1, DType::nvfp4) == 1);    // part bytes round up
  CHECK(dtype_storage_bytes(3, DType::int4) == 2);
  CHECK_FALSE(dtype_whole_bytes(DType::mxfp4));
  CHECK(dtype_whole_bytes(DType::fp8));
}

TEST_CASE("the H200 is the H100 with other memory (HBM, L2), its own sustained matrix clock and more of the die enabled: every other key, collectives included, is the H100's", "[presets]") {
  const toml::table h100 = read_hardware_toml(resolve_preset("hardware", "h100_sxm5"));
  const toml::table h200 = read_hardware_toml(resolve_preset("hardware", "h200_sxm"));
  std::function<void(const toml::table&, const toml::table&, const std::string&)> same =
      [&](const toml::table& a, const toml::table& b, const std::string& prefix) {
        for (auto&& [k, v] : a) {
          const std::string path = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
          if (path == "provenance" || path == "chip.description" || path.rfind("hbm.", 0) == 0 || path.rfind("onchip.l2.", 0) == 0 ||
              path == "matrix.sustained_clock_mhz" ||
              path == "area.other_mm2") {  // the same die with more of it enabled: less left as "other"
            continue;
          }
          INFO(path);
          REQUIRE(b.contains(k.str()));
          if (const toml::table* sub = v.as_table()) {
            same(*sub, *b[k.str()].as_table(), path);
          } else {
            const toml::node& w = *b.get(k.str());
            CHECK(v.type() == w.type());
            CHECK(v.value<double>() == w.value<double>());  // numbers (and booleans: none)
            CHECK(v.value<std::string>() == w.value<std::string>());
            CHECK(v.value<bool>() == w.value<bool>());
          }
        }
      };
  same(h100, h200, "");
  same(h200, h100, "");
  CHECK(h200["hbm"]["bandwidth_gb_per_s"].value_or(0.0) == 4800.0);
  CHECK(h200["onchip"]["l2"]["capacity_bytes"].value_or(0.0) == 60.0 * 1024 * 1024);  // measured: 60 MiB enabled, not the H100's 50
  // Fitted on the H200's own long GEMMs (bench/gpu/results/h200/gemm.csv): faster than the H100's.
  CHECK(h200["matrix"]["sustained_clock_mhz"].value_or(0.0) > h100["matrix"]["sustained_clock_mhz"].value_or(0.0));
  CHECK(h200["collectives"]["launch_ns"].value_or(0.0) > 0.0);  // NCCL's costs on this fabric, not none
}
