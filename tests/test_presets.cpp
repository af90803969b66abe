// Every preset loads, and every number in a hardware preset says where it comes from.
#include <catch2/catch.hpp>
#include <functional>
#include <toml++/toml.h>

#include "core/hardware.hpp"
#include "core/hardware_params.hpp"
#include "core/presets.hpp"
#include "workloads/model.hpp"

using namespace roofsim;

TEST_CASE("the required hardware presets exist and load", "[presets]") {
  auto names = list_presets("hardware");
  for (const char* required : {"h100_sxm5", "h200_sxm", "a100_sxm4_80gb", "tpu_v4"}) {
    CHECK(std::find(names.begin(), names.end(), required) != names.end());
  }
  for (const auto& n : names) {
    INFO(n);
    CHECK_NOTHROW(load_hardware(n));
  }
}

TEST_CASE("every hardware number has a provenance entry", "[presets]") {
  for (const auto& n : list_presets("hardware")) {
    toml::table doc = toml::parse_file(resolve_preset("hardware", n));
    const toml::table* prov = doc["provenance"].as_table();
    REQUIRE(prov);
    std::function<void(const toml::table&, const std::string&)> walk =
        [&](const toml::table& t, const std::string& prefix) {
          for (auto&& [k, v] : t) {
            std::string path = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
            if (path == "provenance" || v.is_string()) continue;  // names, not numbers
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
    const toml::table doc = toml::parse_file(resolve_preset("hardware", n));
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
