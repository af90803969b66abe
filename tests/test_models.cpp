// Hugging Face import, the shipped configs, and the parameter counts against the published
// figures. Each figure names its source; where a source counts differently from total_params()
// (tied heads stored twice, input embeddings left out of "active"), the test says so and
// converts, rather than widening the tolerance.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/presets.hpp"
#include "workloads/hf_config.hpp"
#include "workloads/hub_names.hpp"
#include "workloads/model.hpp"
#include "workloads/model_catalog.hpp"

using namespace roofsim;

namespace {

// The input embedding table: a lookup reads one row of it, so DeepSeek and OpenAI leave it out
// of their "activated parameters" (the LM head, a matmul over all of it, stays in).
double input_table(const ModelConfig& m) { return static_cast<double>(m.vocab) * static_cast<double>(m.hidden); }

// `x` cut (not rounded) to `decimals` places: the Qwen and DeepSeek cards truncate their
// parameter counts (Qwen2.5-7B's 7,615,616,512 is shown as 7.61B; Qwen3-30B-A3B's 3.35B active
// as 3.3B), so a figure with two significant digits is checked at that precision, which is
// tighter there than 1% of the figure would be.
double truncated(double x, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::floor(x * scale) / scale;
}

// A config.json with `text` in a fresh folder; returns its path.
std::string write_config(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("roofsim_test_models_" + name);
  std::filesystem::create_directories(dir);
  const auto path = dir / "config.json";
  std::ofstream(path) << text;
  return path.string();
}

std::string refusal(const std::string& path) {
  try {
    load_hf_config(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("every shipped config.json imports, with its hub id and architecture", "[models]") {
  const std::vector<std::string> ids = list_hub_configs();
  REQUIRE(ids.size() >= 20);
  std::ifstream provenance_file(config_dir() + "/models/hf/PROVENANCE.md");
  const std::string provenance((std::istreambuf_iterator<char>(provenance_file)), std::istreambuf_iterator<char>());
  for (const std::string& id : ids) {
    INFO(id);
    CHECK_THAT(provenance, Catch::Contains("| " + id + " |"));  // where its values come from
    const ModelConfig m = load_model(id);  // by hub id, offline
    CHECK(m.hub_id == id);
    CHECK_FALSE(m.architecture.empty());
    CHECK(m.total_params() > 1e9);
    CHECK(m.active_params_per_token() <= m.total_params());
    CHECK(m.max_context > 0);
  }
  // A hub id is also a folder of its own: the same file through a path.
  const std::string path = config_dir() + "/models/hf/deepseek-ai/DeepSeek-V3/config.json";
  CHECK(load_model(path).hub_id == "deepseek-ai/DeepSeek-V3");
  CHECK(load_model(config_dir() + "/models/hf/deepseek-ai/DeepSeek-V3").hub_id == "deepseek-ai/DeepSeek-V3");
}

TEST_CASE("a checkpoint's quantization_config gives its dense and expert weight formats", "[models]") {
  const ModelConfig r1 = load_model("deepseek-ai/DeepSeek-R1");  // fp8, 128 x 128 blocks, experts too
  CHECK(r1.dense_format.weights == DType::fp8);
  CHECK(r1.dense_format.scale_block_k == 128);
  CHECK(r1.expert_format == r1.dense_format);
  const ModelConfig oss = load_model("openai/gpt-oss-120b");  // mxfp4 experts, 16-bit attention
  CHECK(oss.dense_format.weights == DType::bf16);
  CHECK(oss.expert_format.weights == DType::mxfp4);
  const ModelConfig llama = load_model("nvidia/Llama-3.1-8B-Instruct-FP8");  // modelopt FP8, per tensor
  CHECK(llama.dense_format.weights == DType::fp8);
  CHECK(llama.dense_format.scale_block_k == 0);
  CHECK(load_model("Qwen/Qwen3-32B").dense_format.weights == DType::bf16);
  // An unknown method is refused naming the key, never read as 16-bit weights.
  const std::string dir = (std::filesystem::temp_directory_path() / "roofsim_quant_test").string();
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/config.json") << R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
    "num_hidden_layers": 2, "vocab_size": 100, "max_position_embeddings": 64,
    "quantization_config": {"quant_method": "bitsandbytes"}})";
  CHECK_THROWS_WITH(load_model(dir + "/config.json"), Catch::Contains("quantization_config.quant_method") && Catch::Contains("bitsandbytes"));
}

TEST_CASE("hub ids as people write them: variants, dated releases and quantized checkpoints read as the shipped architecture", "[models]") {
  const std::vector<std::string> shipped = list_hub_configs();
  // Stems: variant, release and quantization tokens cut from both names.
  const auto read_as = [&](const std::string& id) {
    const std::optional<HubNameMatch> m = match_hub_name(id, shipped);
    return m ? m->hub_id : std::string("-");
  };
  CHECK(read_as("meta-llama/Llama-3.1-70B-Instruct") == "meta-llama/Llama-3.1-70B");
  CHECK(read_as("deepseek-ai/DeepSeek-V3-0324") == "deepseek-ai/DeepSeek-V3");
  CHECK(read_as("nvidia/DeepSeek-R1-0528-FP4-v2") == "deepseek-ai/DeepSeek-R1");
  CHECK(read_as("moonshotai/Kimi-K2-Instruct-0905") == "moonshotai/Kimi-K2-Instruct");
  CHECK(read_as("RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic") == "nvidia/Llama-3.1-8B-Instruct-FP8");  // the same token first
  CHECK(read_as("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8") == "Qwen/Qwen3-235B-A22B-FP8");
  CHECK(read_as("Qwen/Qwen3-235B-A22B-Instruct-2507") == "Qwen/Qwen3-235B-A22B");
  CHECK(read_as("meta-llama/llama-3.1-8b-instruct") == "meta-llama/Llama-3.1-8B");  // ids in any case, as the hub takes them
  // Not the same architecture: a distilled model, a dotted version (Mistral v0.2 dropped the window).
  CHECK(read_as("deepseek-ai/DeepSeek-R1-Distill-Llama-70B") == "-");
  CHECK(read_as("mistralai/Mistral-7B-Instruct-v0.3") == "-");
  CHECK(read_as("acme/Foo-7B-Instruct") == "-");
  // The name's quantization where the config read declares another: DeepSeek-R1's block fp8 file
  // for NVIDIA's FP4 checkpoint; Llama 3.3's 16-bit file for an FP8 one. Said on the model.
  const ModelConfig fp4 = load_model("nvidia/DeepSeek-R1-0528-FP4-v2");
  CHECK(fp4.dense_format.weights == DType::nvfp4);
  CHECK(fp4.expert_format.weights == DType::nvfp4);
  CHECK_THAT(fp4.read_as, Catch::Contains("read as deepseek-ai/DeepSeek-R1's layers") && Catch::Contains("-FP4"));
  const ModelConfig l33 = load_model("nvidia/Llama-3.3-70B-Instruct-FP8");
  CHECK(l33.dense_format.weights == DType::fp8);
  CHECK(l33.dense_format.scale_block_k == 0);
  // A config that declares the name's format keeps its own (block scales).
  const ModelConfig q = load_model("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8");
  CHECK(q.dense_format.scale_block_k == 128);
  CHECK_THAT(q.read_as, !Catch::Contains("as the name"));
  // A shipped id is read as given, with nothing to say.
  CHECK(load_model("meta-llama/Llama-3.3-70B-Instruct").read_as.empty());
  CHECK(quantization_token_weights("AWQ") == DType::int4);
  CHECK_FALSE(quantization_token_weights("Instruct"));
  // An id no stem matches keeps its error naming the shipped ones.
  CHECK_THROWS_WITH(load_model("acme/Foo-7B-Instruct"), Catch::Contains("no config.json shipped"));
}

TEST_CASE("dense models: total parameters match the published counts within 1%", "[models]") {
  // Hub model pages' safetensors counts (parameters stored in the checkpoint).
  CHECK(load_model("meta-llama/Llama-3.1-8B").total_params() == Approx(8.03e9).epsilon(0.01));
  CHECK(load_model("meta-llama/Llama-3.1-70B").total_params() == Approx(70.6e9).epsilon(0.01));
  CHECK(load_model("meta-llama/Llama-3.1-405B").total_params() == Approx(405.9e9).epsilon(0.01));
  // Llama-3.2-1B model card: 1.23B (tied embeddings: one table).
  CHECK(load_model("meta-llama/Llama-3.2-1B").total_params() == Approx(1.23e9).epsilon(0.01));
  CHECK(load_model("mistralai/Mistral-7B-v0.1").total_params() == Approx(7.24e9).epsilon(0.01));  // hub: 7.24B
  // Qwen2.5-7B-Instruct model card: 7.61B (6.53B non-embedding); the Q, K and V biases count.
  CHECK(load_model("Qwen/Qwen2.5-7B-Instruct").total_params() == Approx(7.61e9).epsilon(0.01));
  // Qwen3-8B model card: 8.2B (6.95B non-embedding).
  CHECK(load_model("Qwen/Qwen3-8B").total_params() == Approx(8.2e9).epsilon(0.01));
  // Qwen3-32B model card: 32.8B (31.2B non-embedding).
  CHECK(load_model("Qwen/Qwen3-32B").total_params() == Approx(32.8e9).epsilon(0.01));
  // Gemma 2 report, Table 1: 917,504,000 embedding + 8,324,201,984 non-embedding parameters.
  CHECK(load_model("google/gemma-2-9b").total_params() == Approx(917504000.0 + 8324201984.0).epsilon(0.01));
  // Gemma 3 report, Table 1, 27B: 1,416M embedding + 25,600M non-embedding (the 417M vision
  // encoder is not part of the language model roofsim simulates).
  CHECK(load_model("google/gemma-3-27b-it").total_params() == Approx(1416e6 + 25600e6).epsilon(0.01));
  // Phi-3 report / model card: 3.8B.
  CHECK(load_model("microsoft/Phi-3-mini-4k-instruct").total_params() == Approx(3.8e9).epsilon(0.01));
  // GPT-NeoX-20B paper, Table 1: 20,554,567,680 (biases and layer norms included).
  CHECK(load_model("EleutherAI/gpt-neox-20b").total_params() == Approx(20554567680.0).epsilon(0.01));
  // GPT-J-6B model card: 6,053,381,344.
  CHECK(load_model("EleutherAI/gpt-j-6b").total_params() == Approx(6053381344.0).epsilon(0.01));
}

TEST_CASE("Falcon: the hub's counts store the tied LM head a second time", "[models]") {
  // The hub pages show 7.22B (falcon-7b) and 41.8B (falcon-40b): the checkpoints store
  // lm_head.weight next to the word embeddings it is tied to. The models' names ("7B", "40B")
  // are round. Unique parameters are the hub's figure less one table.
  for (const auto& [id, hub] : {std::pair{"tiiuae/falcon-7b", 7.22e9}, {"tiiuae/falcon-40b", 41.8e9}}) {
    INFO(id);
    const ModelConfig m = load_model(id);
    CHECK(m.tied_embeddings);
    CHECK(m.total_params() + input_table(m) == Approx(hub).epsilon(0.01));
  }
}

TEST_CASE("MoE models: total and active parameters match the published counts within 1%", "[models]") {
  // Mistral AI's announcements: Mixtral 8x7B has 46.7B parameters and uses 12.9B per token;
  // Mixtral 8x22B uses 39B active of 141B.
  const ModelConfig m7 = load_model("mistralai/Mixtral-8x7B-v0.1");
  CHECK(m7.total_params() == Approx(46.7e9).epsilon(0.01));
  CHECK(m7.active_params_per_token() == Approx(12.9e9).epsilon(0.01));
  const ModelConfig m22 = load_model("mistralai/Mixtral-8x22B-v0.1");
  CHECK(m22.total_params() == Approx(141e9).epsilon(0.01));
  CHECK(m22.active_params_per_token() == Approx(39e9).epsilon(0.01));
  // Qwen3 model cards: 30.5B total, 3.3B activated; 235B total, 22B activated.
  const ModelConfig q30 = load_model("Qwen/Qwen3-30B-A3B");
  CHECK(q30.total_params() == Approx(30.5e9).epsilon(0.01));
  CHECK(truncated(q30.active_params_per_token() / 1e9, 1) == Approx(3.3));  // 3.35B
  const ModelConfig q235 = load_model("Qwen/Qwen3-235B-A22B");
  CHECK(q235.total_params() == Approx(235e9).epsilon(0.01));
  CHECK(q235.active_params_per_token() == Approx(22e9).epsilon(0.01));
  CHECK(truncated(q235.active_params_per_token() / 1e9, 0) == Approx(22));
  // Qwen2 report, Table 1: 57B total, 14B activated (one shared expert of 20480 besides 8 of 64).
  const ModelConfig q57 = load_model("Qwen/Qwen2-57B-A14B");
  CHECK(q57.total_params() == Approx(57e9).epsilon(0.01));
  CHECK(truncated(q57.active_params_per_token() / 1e9, 0) == Approx(14));  // 14.25B: "14B" to two digits
}

TEST_CASE("DeepSeek: 671B / 36.6B for V3, 15.7B / 2.4B for V2-Lite, 70,272 B of latent KV per token", "[models]") {
  const ModelConfig v3 = load_model("deepseek-ai/DeepSeek-V3");
  REQUIRE(v3.mla);
  CHECK(v3.dense_layers == 3);
  CHECK(v3.shared_experts == 1);
  CHECK(v3.mtp_layers == 1);
  // DeepSeek-V3 README: 671B total (685B on the hub counts the MTP module too).
  CHECK(v3.total_params() == Approx(671e9).epsilon(0.01));
  // README_WEIGHTS.md: 36.6B activated "including 0.9B for the output Head": the input
  // embedding is not counted. The hub's 685B is the main model and the MTP module with its
  // own copies of the embedding and head (README: "671B of the Main Model weights and 14B of
  // the Multi-Token Prediction (MTP) Module weights").
  CHECK(v3.active_params_per_token() - input_table(v3) == Approx(36.6e9).epsilon(0.01));
  CHECK(v3.total_params() + v3.mtp_params() + 2 * input_table(v3) == Approx(685e9).epsilon(0.01));
  // The cache holds the 512-dim latent and the 64-dim rotary key: (512 + 64) x 61 x 2 B.
  CHECK(v3.kv_bytes_per_token(DType::bf16) == Approx(70272.0));

  // DeepSeek-V2 paper (and model card): V2-Lite has 15.7B parameters, 2.4B activated per token.
  const ModelConfig lite = load_model("deepseek-ai/DeepSeek-V2-Lite");
  REQUIRE(lite.mla);
  CHECK(lite.mla->q_lora_rank == 0);  // null in its config: no query compression
  CHECK(lite.total_params() == Approx(15.7e9).epsilon(0.01));
  CHECK(truncated((lite.active_params_per_token() - input_table(lite)) / 1e9, 1) == Approx(2.4));  // 2.45B
}

TEST_CASE("Kimi-K2: a DeepSeek-V3 layout with 384 experts, 1T total and 32B active", "[models]") {
  // Model card: "32 billion activated parameters and 1 trillion total parameters" (round:
  // checked to the digits given). 64 heads instead of V3's 128, one dense first layer.
  const ModelConfig k2 = load_model("moonshotai/Kimi-K2-Instruct");
  REQUIRE(k2.mla);
  CHECK(k2.architecture == "kimi_k2");
  CHECK(truncated(k2.total_params() / 1e12, 0) == Approx(1));
  CHECK(truncated(k2.active_params_per_token() / 1e9, 0) == Approx(32));
  CHECK(k2.kv_bytes_per_token(DType::bf16) == Approx((512.0 + 64) * 61 * 2));
}

TEST_CASE("GLM-4.5 and GLM-4.5-Air: grouped-query attention over DeepSeek-V3's expert layout, 355B / 32B and 106B / 12B", "[models]") {
  // Model cards: 355B total and 32B active, 106B and 12B (active without the input table, as
  // the other cards count). The MTP module is not counted in total_params.
  const ModelConfig big = load_model("zai-org/GLM-4.5"), air = load_model("zai-org/GLM-4.5-Air");
  CHECK(big.architecture == "glm4_moe");
  CHECK_FALSE(big.mla);
  CHECK(big.qkv_bias);
  CHECK_FALSE(big.o_bias);
  CHECK(big.qk_norm);
  CHECK_FALSE(air.qk_norm);
  CHECK(big.dense_layers == 3);
  CHECK(big.shared_experts == 1);
  CHECK(big.total_params() == Approx(355e9).epsilon(0.01));
  CHECK(truncated((big.active_params_per_token() - input_table(big)) / 1e9, 0) == Approx(32));
  CHECK(air.total_params() == Approx(106e9).epsilon(0.01));
  CHECK(truncated((air.active_params_per_token() - input_table(air)) / 1e9, 0) == Approx(12));
  // 8 KV heads of 128 in bf16 on 92 layers.
  CHECK(big.kv_bytes_per_token(DType::bf16) == Approx(2.0 * 8 * 128 * 2 * 92));
}

TEST_CASE("MiniMax-M2: 256 experts in every layer, no shared expert, 230B total and 10B active", "[models]") {
  // Model card: "230 billion total parameters with 10 billion active" (round).
  const ModelConfig m2 = load_model("MiniMaxAI/MiniMax-M2");
  CHECK(m2.architecture == "minimax_m2");
  CHECK(m2.qk_norm);
  CHECK(m2.shared_experts == 0);
  CHECK(m2.dense_layers == 0);
  CHECK(m2.mtp_layers == 3);
  CHECK(m2.total_params() == Approx(230e9).epsilon(0.01));
  CHECK(truncated((m2.active_params_per_token() - input_table(m2)) / 1e9, 0) == Approx(10));  // without the input table, as the cards count
}

TEST_CASE("MiniMax-M2.5: M2's architecture in block-scaled fp8", "[models]") {
  const ModelConfig m25 = load_model("MiniMaxAI/MiniMax-M2.5"), m2 = load_model("MiniMaxAI/MiniMax-M2");
  CHECK(m25.total_params() == Approx(m2.total_params()));
  CHECK(m25.dense_format.weights == DType::fp8);
  CHECK(m25.dense_format.scale_block_k == 128);
}

TEST_CASE("Llama 4: Scout 109B / 17B with experts in every layer, Maverick 400B / 17B in every other, chunked RoPE layers", "[models]") {
  // Model cards: Scout "17B active, 109B total" and Maverick "17B active, 400B total", both
  // counting the vision encoder (about 1B), which is not modelled. One shared expert beside
  // the routed one (top-1).
  const ModelConfig scout = load_model("meta-llama/Llama-4-Scout-17B-16E-Instruct");
  const ModelConfig maverick = load_model("meta-llama/Llama-4-Maverick-17B-128E-Instruct");
  CHECK(scout.architecture == "llama4_text");
  CHECK(scout.moe_layer_count() == 48);
  CHECK(maverick.moe_layer_count() == 24);
  CHECK_FALSE(maverick.moe_layer(0));
  CHECK(maverick.moe_layer(1));
  CHECK(scout.shared_experts == 1);
  CHECK(scout.total_params() == Approx(109e9).epsilon(0.02));
  CHECK(maverick.total_params() == Approx(400e9).epsilon(0.01));
  // 17B active with the input table (16.1B without it, as other cards count).
  CHECK(truncated(scout.active_params_per_token() / 1e9, 0) == Approx(17));
  CHECK(truncated(maverick.active_params_per_token() / 1e9, 0) == Approx(17));
  // Chunks of 8192 on the RoPE layers, every fourth layer global (Llama4TextConfig's default
  // no_rope_layers): 36 of 48 layers keep at most a chunk.
  CHECK(scout.attention_chunk == 8192);
  CHECK(scout.chunked_layer(0));
  CHECK_FALSE(scout.chunked_layer(3));
  CHECK(std::count(scout.chunked_layers.begin(), scout.chunked_layers.end(), true) == 36);
  CHECK(scout.kv_cache_bytes(DType::bf16, 100000) == Approx((36 * 8192 + 12 * 100000) * scout.kv_bytes_per_token_layer(DType::bf16)));
}

TEST_CASE("DeepSeek-V3.2 and GLM-5: latent attention with DeepSeek Sparse Attention's indexer", "[models]") {
  // DeepSeek-V3.2: V3's 671B plus the indexer (64 heads of 128, top 2048; about 0.9B); GLM-5:
  // "744B parameters (40B active)" (its model card), 32 indexer heads.
  const ModelConfig v32 = load_model("deepseek-ai/DeepSeek-V3.2"), glm5 = load_model("zai-org/GLM-5");
  REQUIRE(v32.sparse);
  REQUIRE(glm5.sparse);
  CHECK(v32.sparse->index_heads == 64);
  CHECK(v32.sparse->index_head_dim == 128);
  CHECK(v32.sparse->topk == 2048);
  CHECK(glm5.sparse->index_heads == 32);
  const ModelConfig v3 = load_model("deepseek-ai/DeepSeek-V3");
  CHECK(v32.total_params() - v3.total_params() == Approx(61 * (1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64)));
  CHECK(v32.dense_format.weights == DType::fp8);
  CHECK(glm5.total_params() == Approx(744e9).epsilon(0.01));
  CHECK(truncated((glm5.active_params_per_token() - input_table(glm5)) / 1e9, 0) == Approx(40));
  // The latent (512 + 64 in bf16) and the indexer's fp8 key of 128 with an fp32 scale.
  CHECK(v32.kv_bytes_per_token_layer(DType::bf16) == Approx(576 * 2 + 132));
}

TEST_CASE("Kimi-K2.5: a Kimi-K2 language model in text_config, int4 routed experts (compressed-tensors)", "[models]") {
  const ModelConfig k25 = load_model("moonshotai/Kimi-K2.5"), k2 = load_model("moonshotai/Kimi-K2-Instruct");
  CHECK(k25.architecture == "kimi_k2");
  CHECK(k25.total_params() == Approx(k2.total_params()));
  // The ignore list keeps attention, the shared experts and the dense MLP in 16 bits.
  CHECK(k25.expert_format.weights == DType::int4);
  CHECK(k25.dense_format.weights == DType::bf16);
}

TEST_CASE("Qwen3-Next and Qwen3.5: Gated DeltaNet on three of four layers, 80B / 3B and 397B / 17B", "[models]") {
  // Model cards: Qwen3-Next-80B-A3B "80B total, 3B activated" (without the embeddings and LM head)
  // and Qwen3.5-397B-A17B (its name: 397B total with the vision encoder, 17B active).
  const ModelConfig next = load_model("Qwen/Qwen3-Next-80B-A3B-Instruct"), q35 = load_model("Qwen/Qwen3.5-397B-A17B");
  REQUIRE(next.linear);
  REQUIRE(q35.linear);
  CHECK(next.linear_layer_count() == 36);
  CHECK(q35.linear_layer_count() == 45);
  CHECK_FALSE(q35.linear_layer(3));
  CHECK(next.attention_gate);
  CHECK(next.linear->state_dtype == DType::bf16);  // no mamba_ssm_dtype: the model's 16 bits
  CHECK(q35.linear->state_dtype == DType::fp32);
  CHECK(next.total_params() == Approx(80e9).epsilon(0.01));
  CHECK(truncated((next.active_params_per_token() - 2 * input_table(next)) / 1e9, 0) == Approx(3));
  CHECK(q35.total_params() == Approx(397e9).epsilon(0.01));
  CHECK(truncated(q35.active_params_per_token() / 1e9, 0) == Approx(17));
  // Only the 12 (15) attention layers cache tokens: 2 KV heads of 256 in bf16.
  CHECK(next.kv_bytes_per_token(DType::bf16) == Approx(12 * 2 * 2 * 256 * 2));
  CHECK(q35.kv_bytes_per_token(DType::bf16) == Approx(15 * 2 * 2 * 256 * 2));
}

TEST_CASE("compressed-tensors: weight-only integer groups, quantized activations refused with the key", "[models]") {
  const std::string base = R"({"model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 8,
    "intermediate_size": 2048, "vocab_size": 1000, "quantization_config": {"quant_method": "compressed-tensors",
    "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "int"}, "input_activations": ACT}}}})";
  int files = 0;
  auto with = [&](const std::string& act) {
    std::string t = base;
    t.replace(t.find("ACT"), 3, act);
    return write_config("compressed_tensors_" + std::to_string(files++), t);
  };
  const ModelConfig m = load_model(with("null"));
  CHECK(m.dense_format.weights == DType::int8);
  CHECK(m.expert_format.weights == DType::int8);
  CHECK_THROWS_WITH(load_model(with(R"({"num_bits": 8})")), Catch::Contains("quantization_config.config_groups.group_0.input_activations"));
}

TEST_CASE("gpt-oss: 116.83B / 5.13B and 20.91B / 3.61B, windows on every other layer", "[models]") {
  // gpt-oss model card, Table 1: active parameters count the unembedding, not the embedding.
  // The MXFP4 storage of the experts changes their bytes, not their count.
  const ModelConfig big = load_model("openai/gpt-oss-120b");
  CHECK(big.total_params() == Approx(116.83e9).epsilon(0.01));
  CHECK(big.active_params_per_token() - input_table(big) == Approx(5.13e9).epsilon(0.01));
  const ModelConfig small = load_model("openai/gpt-oss-20b");
  CHECK(small.total_params() == Approx(20.91e9).epsilon(0.01));
  CHECK(small.active_params_per_token() - input_table(small) == Approx(3.61e9).epsilon(0.01));
  CHECK(big.attention_sinks);
  CHECK(big.sliding_window == 128);
  CHECK(big.sliding_layer(0));
  CHECK_FALSE(big.sliding_layer(1));
}

TEST_CASE("sliding windows: Mistral on every layer, Gemma-2 on even layers, Gemma-3 on five of six, Qwen none", "[models]") {
  const ModelConfig mistral = load_model("mistralai/Mistral-7B-v0.1");
  CHECK(mistral.sliding_window == 4096);
  CHECK(mistral.sliding_layer(0));
  CHECK(mistral.sliding_layer(31));
  const ModelConfig g2 = load_model("google/gemma-2-9b");
  CHECK(g2.head_dim == 256);
  CHECK(g2.tied_embeddings);
  CHECK(g2.sliding_layer(0));
  CHECK_FALSE(g2.sliding_layer(1));
  const ModelConfig g3 = load_model("google/gemma-3-27b-it");
  CHECK(g3.architecture == "gemma3_text");
  CHECK(g3.vocab == 262208);  // Gemma3TextConfig's default: the file leaves it out
  CHECK(g3.qk_norm);
  CHECK(g3.sliding_layer(4));
  CHECK_FALSE(g3.sliding_layer(5));
  CHECK(g3.sliding_layer(6));
  // Qwen2.5 names a window but use_sliding_window is false; Mixtral's window is null.
  CHECK(load_model("Qwen/Qwen2.5-7B-Instruct").sliding_layers.empty());
  CHECK(load_model("mistralai/Mixtral-8x7B-v0.1").sliding_layers.empty());
}

TEST_CASE("TOML presets name their hub repository", "[models]") {
  CHECK(load_model("llama-3-8b").hub_id == "meta-llama/Meta-Llama-3-8B");
  CHECK(load_model("mixtral-8x7b").hub_id == "mistralai/Mixtral-8x7B-v0.1");
  CHECK(load_model("palm-540b").hub_id.empty());
  // The TOML preset and the shipped config.json of one model agree.
  CHECK(load_model("mistral-7b").total_params() == Approx(load_model("mistralai/Mistral-7B-v0.1").total_params()));
}

TEST_CASE("the catalog lists every preset and shipped config once", "[models]") {
  const auto catalog = model_catalog();
  CHECK(catalog.size() == list_presets("models").size() + list_hub_configs().size());
  bool found = false;
  for (const auto& e : catalog) {
    if (e.name != "deepseek-ai/DeepSeek-V3") continue;
    found = true;
    const auto row = catalog_row(e);
    CHECK(row["architecture"] == "deepseek_v3");
    CHECK(row["kv_bytes_per_token_bf16"] == 70272);
    CHECK(row["total_params"] == 671026404352);  // integers: exact in JSON and CSV
  }
  CHECK(found);
}

TEST_CASE("an unknown hub id says how to give a local config.json", "[models]") {
  try {
    load_model("nobody/NoSuchModel-7B");
    FAIL("accepted an unknown hub id");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("no config.json shipped for that Hugging Face hub id"));
    CHECK_THAT(e.what(), Catch::Contains("path/to/config.json"));
    CHECK_THAT(e.what(), Catch::Contains("deepseek-ai/DeepSeek-V3"));
    CHECK_THAT(e.what(), !Catch::Contains("did you mean"));
  }
  // A slip of a shipped id is named.
  CHECK_THROWS_WITH(load_model("meta-llama/Llama-3.1-8C"), Catch::Contains("did you mean meta-llama/Llama-3.1-8B?"));
}

TEST_CASE("bad config.json files are refused with file, line and key", "[models]") {
  // An unknown architecture lists the supported ones.
  CHECK_THAT(refusal(write_config("type", "{\n  \"model_type\": \"mamba\"\n}\n")),
             Catch::Contains("config.json:2: model_type: unsupported architecture 'mamba' (supported: deepseek_v2"));
  // A size of the wrong type.
  CHECK_THAT(refusal(write_config("types", "{\"model_type\": \"llama\", \"hidden_size\": \"4096\"}")),
             Catch::Contains("hidden_size: expected a positive integer, got \"4096\""));
  // A required key missing.
  CHECK_THAT(refusal(write_config("missing", "{\"model_type\": \"qwen3_moe\", \"hidden_size\": 2048, \"num_hidden_layers\": 2,"
                                             " \"num_attention_heads\": 16, \"intermediate_size\": 6144, \"vocab_size\": 1000,"
                                             " \"num_experts\": 8}")),
             Catch::Contains("num_experts_per_tok: missing"));
  // layer_types of the wrong length.
  CHECK_THAT(refusal(write_config("layer_types", "{\"model_type\": \"gpt_oss\", \"hidden_size\": 64, \"num_hidden_layers\": 3,"
                                                 " \"num_attention_heads\": 4, \"intermediate_size\": 64, \"vocab_size\": 100,"
                                                 " \"num_local_experts\": 4, \"num_experts_per_tok\": 2, \"sliding_window\": 8,"
                                                 " \"layer_types\": [\"sliding_attention\", \"full_attention\"]}")),
             Catch::Contains("layer_types: 2 entries for 3 layers"));
  CHECK_THAT(refusal(write_config("layer_kind", "{\"model_type\": \"qwen3\", \"hidden_size\": 64, \"num_hidden_layers\": 1,"
                                                " \"num_attention_heads\": 4, \"intermediate_size\": 64, \"vocab_size\": 100,"
                                                " \"sliding_window\": 8, \"layer_types\": [\"linear_attention\"]}")),
             Catch::Contains("unknown entry 'linear_attention'"));
  // Inconsistent latent-attention dimensions.
  const std::string mla = "{\"model_type\": \"deepseek_v3\", \"hidden_size\": 1024, \"num_hidden_layers\": 2, \"num_attention_heads\": 8,"
                          " \"intermediate_size\": 2048, \"vocab_size\": 1000, \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64,"
                          " \"v_head_dim\": 128, ";
  CHECK_THAT(refusal(write_config("mla_rank", mla + "\"kv_lora_rank\": 4096}")),
             Catch::Contains("kv_lora_rank: must be below hidden_size (1024)"));
  CHECK_THAT(refusal(write_config("mla_heads", mla + "\"kv_lora_rank\": 512, \"num_key_value_heads\": 1}")),
             Catch::Contains("num_key_value_heads: latent attention has no KV heads of its own"));
  CHECK_THAT(refusal(write_config("mla_dim", mla + "\"kv_lora_rank\": 512, \"qk_head_dim\": 128}")),
             Catch::Contains("qk_head_dim: must be qk_nope_head_dim + qk_rope_head_dim (192)"));
  CHECK_THAT(refusal(write_config("mla_missing", mla.substr(0, mla.find("\"v_head_dim\"")) + "\"kv_lora_rank\": 512}")),
             Catch::Contains("v_head_dim: missing"));
  // A multimodal Gemma-3 without its text_config, and one nested key wrong: named with its parent.
  CHECK_THAT(refusal(write_config("gemma3", "{\"model_type\": \"gemma3\"}")),
             Catch::Contains("text_config: missing"));
  CHECK_THAT(refusal(write_config("gemma3_key", "{\"model_type\": \"gemma3\",\n \"text_config\": {\n  \"hidden_size\": -5}}")),
             Catch::Contains("config.json:3: text_config.hidden_size: expected a positive integer, got -5"));
  // Experts on only some layers: a pattern roofsim cannot build is refused, not ignored.
  CHECK_THAT(refusal(write_config("sparse_step", "{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 4,"
                                                 " \"num_attention_heads\": 4, \"intermediate_size\": 64, \"vocab_size\": 100,"
                                                 " \"num_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 32,"
                                                 " \"decoder_sparse_step\": 2}")),
             Catch::Contains("decoder_sparse_step: only 1"));
}
