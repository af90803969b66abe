#!/usr/bin/env bash
# The roofsim program end to end, as a user calls it: exit codes, messages, JSON keys.
set -u
roofsim="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_ok NAME CMD... : exits 0
expect_ok() { local name="$1"; shift; if "$@" >"$tmp/out" 2>"$tmp/err"; then ok; else bad "$name (exit $?): $(cat "$tmp/err")"; fi; }
# expect_error NAME PATTERN CMD... : exits non-zero, stderr contains PATTERN
expect_error() {
  local name="$1" pattern="$2"; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -eq 0 ]; then bad "$name: exited 0"; return; fi
  if grep -qF -- "$pattern" "$tmp/err"; then ok; else bad "$name: stderr lacks '$pattern': $(cat "$tmp/err")"; fi
}
contains() { if grep -qF -- "$2" "$tmp/out"; then ok; else bad "$1: output lacks '$2'"; fi; }

expect_ok "help" "$roofsim" --help
contains "help lists subcommands" "roofline"
for sub in hw roofline run; do expect_ok "$sub --help" "$roofsim" "$sub" --help; done

expect_ok "hw list" "$roofsim" hw list
for p in h100_sxm5 h200_sxm a100_sxm4_80gb tpu_v4 b200 gb200_nvl72 mi300x tpu_v5e tpu_v5p tpu_v6e; do contains "hw list $p" "$p"; done
expect_ok "hw show" "$roofsim" hw show tpu_v4
contains "hw show has sources" "SPEC-V4-FLOPS"
# Every input's kind of source: the A100's sustained clock is fitted to one public matmul
# benchmark; the H200's kernel cycles are the H100's fits, assumptions for the H200.
expect_ok "hw show --provenance" "$roofsim" hw show a100_sxm4_80gb --provenance --json "$tmp/prov.json"
contains "hw show --provenance: a microbenchmark" "microbenchmark  calibrated: MB-A100-MAMF-BF16"
contains "hw show --provenance: counts per kind" "datasheet, 3 microbenchmark, 0 fit,"
# A key the file leaves at its default is said to be one, not an assumption without a source
# (a TPU file has no GPU kernel cycles).
expect_ok "hw show tpu defaults" "$roofsim" hw show tpu_v4 --provenance
contains "hw show: a default is named" "(not in the file: the default)"
contains "hw show: defaults counted apart" "left at their default (not set in the file)"
if python3 -c 'import json, sys; k = json.load(open(sys.argv[1]))["provenance_kinds"]; sys.exit(0 if k["matrix.units"] == "datasheet" and k["hbm.access_latency_ns"] == "assumption" else 1)' "$tmp/prov.json"; then ok; else
  bad "hw show --provenance: provenance_kinds in the JSON: $(head -c 400 "$tmp/prov.json")"; fi
expect_ok "hw show --provenance (a file on a base)" "$roofsim" hw show h200_sxm --provenance
contains "hw show --provenance: a base chip's fit is an assumption here" "assumption      carried over from h100_sxm5: calibrated: validation/kernels/h100 context_attention.csv"

# Models: presets and shipped Hugging Face configs, offline by hub id.
expect_ok "models list" "$roofsim" models list
for p in llama-3-8b deepseek-ai/DeepSeek-V3 openai/gpt-oss-120b Qwen/Qwen3-30B-A3B; do contains "models list $p" "$p"; done
contains "models list: DeepSeek-V3 latent KV per token" "68.6 KiB"
expect_ok "models list csv" "$roofsim" models list --csv -
contains "models csv header" "name,hub_id,architecture,layers,total_params,active_params_per_token,kv_bytes_per_token_bf16,max_context"
contains "models csv DeepSeek-V3 row" "deepseek-ai/DeepSeek-V3,deepseek-ai/DeepSeek-V3,deepseek_v3,61,"
expect_ok "models list json" "$roofsim" models list --json -
contains "models json" '"kv_bytes_per_token_bf16": 70272'
expect_ok "models show" "$roofsim" models show deepseek-ai/DeepSeek-V3
contains "models show source" "models/hf/deepseek-ai/DeepSeek-V3/config.json"
contains "models show mla" "mla.kv_lora_rank"
expect_ok "run by hub id" "$roofsim" run --model meta-llama/Llama-3.1-8B --prompt 64 --gen 4 --json "$tmp/hub.json"
# The bound says what an "all parameters / bandwidth" estimate adds: the embedding table, unread.
expect_ok "run's bound and the embedding table" "$roofsim" run --model llama-3-8b --prompt 64 --gen 4
contains "run names the unread embedding table" "the embedding table (1.05 GB) is not read"
if grep -qF '"Llama-3.1-8B"' "$tmp/hub.json"; then ok; else bad "run by hub id: result lacks the model name"; fi

expect_ok "roofline json" "$roofsim" roofline --hw h100_sxm5 --json -
for k in '"hardware"' '"peak_flops"' '"bandwidth"' '"ridge"' '"bf16"'; do contains "roofline json $k" "$k"; done
expect_ok "roofline table" "$roofsim" roofline --hw tpu_v4
contains "tpu ridge" "229.4 FLOP/B"
expect_ok "gemm bound" "$roofsim" roofline --hw h100_sxm5 --gemm 1,4096,4096 --dtype bf16 --json "$tmp/g.json"
contains "gemm table" "memory"
if grep -q '"roof": "memory"' "$tmp/g.json" && grep -q '"intensity"' "$tmp/g.json"; then ok; else bad "gemm json file"; fi

# A call of several kernels writes every op, not only the first.
expect_ok "moe call json" "$roofsim" op --moe 64,4096,14336,8,2 --json "$tmp/moe.json"
if [ "$(grep -c '"name": "moe' "$tmp/moe.json")" -eq 5 ] && grep -q '"gemm experts down' "$tmp/moe.json" && grep -q '"bounds_sum_s"' "$tmp/moe.json"; then ok; else bad "moe call json: not every op of the layer"; fi
expect_ok "moe power-law json" "$roofsim" op --moe 32,5120,8192,128,1,1,32 --routing power_law:1.2 --json "$tmp/moe_pl.json"
if [ "$(grep -c '"max_expert_copies"' "$tmp/moe_pl.json")" -eq 5 ]; then ok; else bad "moe power-law json: not the 5 routing draws"; fi
expect_error "moe kernel flag" "--moe-kernel" "$roofsim" run --model mixtral-8x7b --moe-kernel deepgemm
# Fusion as a what-if: the fused run names its fused ops, records the setting, and is faster.
expect_ok "fuse elementwise" "$roofsim" run --prompt 64 --gen 4 --fuse elementwise --json "$tmp/fused.json" --csv "$tmp/fused.csv"
if grep -q '"fuse": "elementwise"' "$tmp/fused.json" && grep -q 'layer3.mlp_residual_norm' "$tmp/fused.csv" && ! grep -q 'layer3.rope' "$tmp/fused.csv"; then ok; else bad "fuse elementwise: setting or fused ops missing"; fi
expect_ok "fuse none" "$roofsim" run --prompt 64 --gen 4 --json "$tmp/unfused.json"
if python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if a['tpot_s'] < b['tpot_s'] else 1)" "$tmp/fused.json" "$tmp/unfused.json"; then ok; else bad "fuse elementwise: not faster than unfused"; fi
expect_error "fuse flag" "--fuse" "$roofsim" run --fuse all
expect_ok "moe kernel json" "$roofsim" run --model Qwen/Qwen3-30B-A3B --batch 2 --prompt 64 --gen 2 --stack trtllm-1.x --json "$tmp/moe_run.json"
if grep -q '"moe_kernel": "trtllm_cutlass"' "$tmp/moe_run.json" && grep -q 'moe.finalize' "$tmp/moe_run.json"; then ok; else bad "moe kernel json: no trtllm_cutlass setup or finalize op"; fi

expect_ok "default run" "$roofsim" run --gen 8 --json "$tmp/run.json" --csv "$tmp/run.csv" --trace "$tmp/trace.json"
contains "default run is llama-3-8b" "Llama-3-8B"
contains "run reports ttft" "time to first token"
for k in ttft_s tpot_s throughput_tok_s total_s bound_ttft_s bound_tpot_s events wall_s ops sim_time_s bound_time_s intensity roof; do
  if grep -q "\"$k\"" "$tmp/run.json"; then ok; else bad "run json lacks $k"; fi
done
if head -1 "$tmp/run.csv" | grep -q "^phase,step,weight,layer,name" && [ "$(wc -l < "$tmp/run.csv")" -gt 100 ]; then ok; else bad "run csv"; fi
if grep -q '"traceEvents"' "$tmp/trace.json" && grep -q 'matrix unit 131' "$tmp/trace.json" && grep -q 'HBM stack 4' "$tmp/trace.json"; then ok; else bad "trace tracks"; fi
# Traces: the ops track first; a process per simulated chip and one of links in multi-chip runs;
# beyond --trace-max-events the steps that fit (saying so), or exit 2 naming the flag.
if grep -qF '{"args":{"name":"ops"},"name":"thread_name","ph":"M","pid":1,"tid":1}' "$tmp/trace.json" && grep -qF '{"args":{"sort_index":1},"name":"thread_sort_index","ph":"M","pid":1,"tid":1}' "$tmp/trace.json"; then ok; else bad "trace: ops track first"; fi
expect_ok "tp trace" "$roofsim" run --tp 2 --prompt 32 --gen 2 --trace "$tmp/tp.json"
if grep -qF '"name":"chips 0-1 in lockstep, ' "$tmp/tp.json" && grep -qF '"name":"links (switch:2)"' "$tmp/tp.json" && grep -qF '"name":"chip1->switch"' "$tmp/tp.json" && grep -qF 'attn_allreduce","ph":"X","pid":2,' "$tmp/tp.json"; then ok; else bad "tp trace: chip and link processes"; fi
expect_ok "trace of prefill" "$roofsim" run --gen 2 --trace-steps 1 --trace "$tmp/t1.json"
prefill_events=$(( $(wc -l < "$tmp/t1.json") - 2 ))
expect_ok "trace over the limit" "$roofsim" run --gen 2 --trace "$tmp/t2.json" --trace-max-events "$prefill_events"
if grep -qF "has prefill only ($prefill_events events)" "$tmp/err" && cmp -s "$tmp/t1.json" "$tmp/t2.json"; then ok; else bad "trace kept to the steps that fit: $(cat "$tmp/err")"; fi
"$roofsim" run --gen 2 --trace "$tmp/t3.json" --trace-max-events 1000 >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -qF -- "more than --trace-max-events 1000: raise --trace-max-events" "$tmp/err" && [ ! -e "$tmp/t3.json" ]; then ok; else bad "trace refused (exit $rc): $(cat "$tmp/err")"; fi
# --graph: the operator graph of prefill and the first decode step; the prefill's GEMMs are
# compute-bound (orange), the decode's memory-bound (blue); later layers are one box.
expect_ok "graph as DOT" "$roofsim" run --gen 2 --graph "$tmp/graph.dot"
dot_of() { grep -F "$1" "$tmp/graph.dot"; }
if grep -q '^digraph roofsim' "$tmp/graph.dot" && grep -q 'cluster_0' "$tmp/graph.dot" && grep -q 'cluster_1' "$tmp/graph.dot" &&
   dot_of 's0_2 [label="layer0.qkv\n512x6144x4096 bf16' | grep -q '(compute)", fillcolor="#f4a582"' &&
   dot_of 's1_2 [label="layer0.qkv\n1x6144x4096 bf16' | grep -q '(memory)", fillcolor="#92c5de"' &&
   grep -qF 'label="layers 1-31\n372 ops' "$tmp/graph.dot" && ! grep -q 'layer1\.' "$tmp/graph.dot"; then ok; else bad "graph DOT: $(head -c 600 "$tmp/graph.dot")"; fi
expect_ok "graph with two layers drawn" "$roofsim" run --gen 2 --graph "$tmp/graph2.dot" --graph-layers 2
if grep -q 'layer1\.qkv' "$tmp/graph2.dot" && grep -q 'label="layers 2-31' "$tmp/graph2.dot"; then ok; else bad "graph --graph-layers 2"; fi
if command -v dot > /dev/null; then
  expect_ok "graph drawn as SVG" "$roofsim" run --gen 2 --graph "$tmp/graph.svg"
  if grep -q '<svg' "$tmp/graph.svg" && grep -q 'layer0.gate_up' "$tmp/graph.svg" && [ ! -e "$tmp/graph.svg.dot.tmp" ]; then ok; else bad "graph SVG"; fi
fi
"$roofsim" run --gen 2 --graph "$tmp/graph.txt" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -qF -- "--graph $tmp/graph.txt: give a .dot" "$tmp/err"; then ok; else bad "graph: a wrong extension (exit $rc): $(cat "$tmp/err")"; fi
expect_ok "experiment file" "$roofsim" run "$(dirname "$0")/../configs/experiments/llama3-8b-batch16-fp8kv.toml" --gen 4
contains "experiment file read" "batch 16"
contains "experiment fp8 kv" "KV fp8"
printf '[experiment]\nbatchsize = 4\n' > "$tmp/bad_exp.toml"
expect_error "unknown experiment key" "bad_exp.toml:2: experiment.batchsize: unknown key" "$roofsim" run "$tmp/bad_exp.toml"
printf '[experiment]\nmodel = "Qwen/Qwen3-30B-A3B"\ntp = 4\nmoe_tp = 3\n' > "$tmp/moe_tp.toml"
expect_error "experiment moe_tp" "moe_tp.toml:4: experiment.moe_tp 3 must divide experiment.tp 4" "$roofsim" run "$tmp/moe_tp.toml"
printf '[experiment]\nmodel = "llama-3-8b"\nweights_dtype = "fp8"\nactivations_dtype = "fp8"\nfp8_scaling = "block"\n' > "$tmp/fp8_block.toml"
expect_error "experiment fp8_scaling" "fp8_block.toml:5: experiment.fp8_scaling block: needs fp8 weights and bf16" "$roofsim" run "$tmp/fp8_block.toml"
printf '[experiment]\nmodel = "Qwen/Qwen3-30B-A3B"\nmoe_kernel = "deepgemm"\n' > "$tmp/moe_kernel.toml"
expect_error "experiment moe_kernel" "moe_kernel.toml:3: experiment.moe_kernel: expected grouped or trtllm_cutlass, got \"deepgemm\"" "$roofsim" run "$tmp/moe_kernel.toml"
printf '[experiment]\nmodel = "Qwen/Qwen3-30B-A3B"\nbatch = 2\nprompt = 64\ngenerate = 2\nmoe_kernel = "trtllm_cutlass"\nfp8_scaling = "block"\nweights_dtype = "fp8"\n' > "$tmp/moe_ok.toml"
expect_ok "experiment moe keys" "$roofsim" run "$tmp/moe_ok.toml"
printf '{"model_type": "llama", "hidden_size": 2048, "intermediate_size": 5632, "num_attention_heads": 32, "num_hidden_layers": 22, "num_key_value_heads": 4, "vocab_size": 32000}\n' > "$tmp/config.json"
expect_ok "hf config" "$roofsim" run --model "$tmp/config.json" --gen 4
printf '{"model_type": "t5"}\n' > "$tmp/t5.json"
expect_error "unsupported hf" "unsupported architecture 't5'" "$roofsim" run --model "$tmp/t5.json"
expect_error "bad kv dtype" "--kv-dtype int4: the KV cache must be" "$roofsim" run --kv-dtype int4
expect_error "tpu fp8" "--activations-dtype fp8: the matrix units of tpu_v4 do not compute in it" "$roofsim" run --hw tpu_v4 --activations-dtype fp8
expect_error "h100 nvfp4" "--activations-dtype nvfp4: the matrix units of h100_sxm5 do not compute in it" "$roofsim" run --hw h100_sxm5 --activations-dtype nvfp4
expect_error "h100 op mxfp4" "--dtype mxfp4: the matrix units of h100_sxm5 do not compute in it" "$roofsim" op --hw h100_sxm5 --gemm 16,4096,4096 --dtype mxfp4
expect_error "tpu op int4" "--dtype int4: the matrix units of tpu_v4 do not compute in it; supported: bf16, int8" "$roofsim" op --hw tpu_v4 --gemm 16,4096,4096 --dtype int4
expect_error "h100 roofline nvfp4" "--dtype nvfp4: no unit of h100_sxm5 computes in it" "$roofsim" roofline --hw h100_sxm5 --dtype nvfp4 --gemm 1,4096,4096
expect_ok "b200 nvfp4 weights" "$roofsim" run --hw b200 --weights-dtype nvfp4 --gen 4
contains "b200 nvfp4 weights shown" "nvfp4"
expect_ok "b200 nvfp4 gemm" "$roofsim" op --hw b200 --gemm 4096,4096,4096 --dtype nvfp4
expect_ok "weight-only gemm json" "$roofsim" op --hw h200_sxm --gemm 16,16384,10240 --weights-dtype int4 --stack trtllm-1.x --json "$tmp/wo.json"
if python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if "x int4 weights" in j["name"] and "A and B swapped" in j["plan"] and j["sim_time_s"] >= j["bound_time_s"] else 1)' "$tmp/wo.json"; then ok; else bad "weight-only gemm: $(cat "$tmp/wo.json")"; fi
expect_ok "vllm fp8 gemm" "$roofsim" op --gemm 16,8192,8192 --dtype fp8 --stack vllm
contains "vllm fp8 gemm: vLLM's scaled_mm, swapped below 64 tokens" "unit tile 16x64, 32 steps, 4 stages, A and B swapped"
expect_ok "trtllm fp8 gemm" "$roofsim" op --gemm 16,8192,8192 --dtype fp8 --stack trtllm-1.x
if grep -qF "A and B swapped" "$tmp/out"; then bad "trtllm fp8 gemm: the library's GEMM is not swapped"; else ok; fi
expect_error "weight-only needs 16-bit activations" "--weights-dtype int4: a weight-only GEMM takes int4, int8, mxfp4 or nvfp4 weights with --dtype bf16 or fp16" "$roofsim" op --gemm 16,4096,4096 --weights-dtype int4 --dtype fp8
expect_error "weight-only needs a gemm" "--weights-dtype goes with --gemm" "$roofsim" op --moe 16,4096,1024,8,2 --weights-dtype int4
expect_error "op unknown stack" "'nosuch': unknown stacks preset" "$roofsim" op --gemm 16,4096,4096 --stack nosuch
expect_ok "mi300x mesh collective" "$roofsim" collective --hw mi300x --topology mesh:8 --op allreduce --bytes 256MiB
contains "mesh default algorithm" "mesh_oneshot"
expect_error "mesh too large" "a full mesh of 9 chips needs at least 8" "$roofsim" collective --hw mi300x --topology mesh:9 --op allreduce --bytes 1MiB
# A GEMV the near-memory units run is bound by their roofline, not the matrix units' (it read
# 165-350% of that roof): the simulated time never beats the bound it is shown with.
for g in 1,7077,3814 1,16384,16384; do
  expect_ok "op near memory $g" "$roofsim" op --hw h100_pim --gemm "$g" --dtype int8 --json "$tmp/pim_op.json"
  if python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if j["plan"].startswith("near-memory") and j["sim_time_s"] >= j["bound_time_s"] else 1)' "$tmp/pim_op.json"; then ok; else bad "op near memory $g beats its bound: $(cat "$tmp/pim_op.json")"; fi
done
expect_ok "op" "$roofsim" op --gemm 1,4096,4096 --json "$tmp/op.json"
for k in sim_time_s achieved_flops roof_flops intensity events wall_s; do
  if grep -q "\"$k\"" "$tmp/op.json"; then ok; else bad "op json lacks $k"; fi
done
expect_ok "roofline --sweep" "$roofsim" roofline --sweep --hw tpu_v4 --points 8 --json "$tmp/sweep.json" --plot "$tmp/sweep.svg"
for k in points emergent_ridge analytic_ridge; do
  if grep -q "\"$k\"" "$tmp/sweep.json"; then ok; else bad "sweep json lacks $k"; fi
done
if grep -q "<svg" "$tmp/sweep.svg"; then ok; else bad "sweep plot is not an svg"; fi
expect_error "plot extension" "expected a .png or .svg" "$roofsim" roofline --sweep --points 6 --plot "$tmp/x.gif"
# Its old name, `sweep` without a FILE, runs the same for a release and says so.
"$roofsim" sweep --hw tpu_v4 --points 8 --json "$tmp/sweep_old.json" 2>"$tmp/sweep_old.err" >/dev/null
if diff -q <(grep -v '"wall_s"' "$tmp/sweep.json") <(grep -v '"wall_s"' "$tmp/sweep_old.json") >/dev/null &&
   grep -q "is now \`roofsim roofline --sweep\`" "$tmp/sweep_old.err"; then ok; else bad "sweep without FILE, the old name"; fi
expect_error "sweep-only flags need --sweep" "--points is for the simulated sweep: add --sweep" "$roofsim" roofline --points 8
# A chart's path may hold a quote (gnuplot's script quotes it).
mkdir -p "$tmp/it's"
expect_ok "plot path with a quote" "$roofsim" roofline --sweep --points 6 --plot "$tmp/it's/sweep.svg"
if grep -q "<svg" "$tmp/it's/sweep.svg"; then ok; else bad "plot path with a quote"; fi
expect_ok "collective" "$roofsim" collective --hw tpu_v4 --topology 4x4x4 --op allreduce --bytes 64MiB --json "$tmp/coll.json"
for k in sim_time_s bound_time_s algbw busbw events wall_s; do
  if grep -q "\"$k\"" "$tmp/coll.json"; then ok; else bad "collective json lacks $k"; fi
done
# A 4x4 plane of a 4x4x2 torus all-reduces on its own links; both planes at once.
expect_ok "collective on sub-tori" "$roofsim" collective --hw tpu_v4 --topology 4x4x2 --group 16 --bytes 96MiB --json "$tmp/planes.json"
if grep -q '"group": 16' "$tmp/planes.json"; then ok; else bad "collective json lacks the group"; fi
expect_ok "collective group not spanning: routed ring" "$roofsim" collective --hw tpu_v4 --topology 4x4x4 --group 8
contains "collective group not spanning: routed ring" "algorithm ring, every group of 8 chips"
expect_error "torus algo on a group that is no sub-torus" "(sizes that do: 1, 4, 16, 64)" "$roofsim" collective --hw tpu_v4 --topology 4x4x4 --group 8 --algo torus
expect_ok "routed send" "$roofsim" collective --hw tpu_v4 --topology 8x8 --op sendrecv --to 19 --bytes 64MiB
contains "routed send hops" "chip 0 to chip 19 (5 hops)"
expect_error "bad --to" "expected a chip from 1 to 63" "$roofsim" collective --hw tpu_v4 --topology 8x8 --op sendrecv --to 64
expect_error "bad topology" "expected mesh:N, N (a ring), AxBxC (a torus), switch:N or nodes:NxL (N nodes of L chips), with positive sizes" "$roofsim" collective --topology 4x0x4
expect_error "bad bytes" "--bytes: '12XB' is not a size from 1 B to 256 TiB" "$roofsim" collective --bytes 12XB
expect_error "algo on wrong topology" "needs a switch topology" "$roofsim" collective --hw tpu_v4 --algo switch_reduce
# NCCL's protocols and the frameworks' custom all-reduce (docs/calibration.md).
expect_ok "nccl by default on a switch" "$roofsim" collective --bytes 8KiB
contains "nccl by default on a switch" "algorithm nccl"
expect_ok "nccl all-to-all" "$roofsim" collective --op alltoall --bytes 1MiB
expect_ok "nccl int8 all-reduce (ring)" "$roofsim" collective --bytes 64MiB --dtype int8
expect_ok "trtllm custom all-reduce" "$roofsim" collective --algo trtllm_custom --bytes 64KiB
expect_ok "vllm custom all-reduce" "$roofsim" collective --algo vllm_custom --bytes 64KiB --topology switch:4
expect_error "bad dtype" "--dtype: 'int3' is not fp32, tf32, bf16" "$roofsim" collective --dtype int3
expect_error "nvls on int8" "the switch reduces fp32, bf16 and fp16, not --dtype int8" "$roofsim" collective --algo nccl_nvls --dtype int8
expect_error "custom all-reduce is an all-reduce" "a custom all-reduce is an all-reduce" "$roofsim" collective --algo vllm_custom --op allgather
expect_error "nccl on a torus" "needs a switch topology" "$roofsim" collective --hw tpu_v4 --algo nccl
expect_ok "tp and pp" "$roofsim" run --model llama-2-70b --tp 4 --pp 2 --batch 4 --prompt 64 --gen 2
contains "pipeline run" "tensor parallel 4 x pipeline 2"
# TP x PP on a TPU v4 torus: each stage's TP group is an x ring, the stages' sends cross y links.
expect_ok "pp on a torus" "$roofsim" run --hw tpu_v4 --model llama-2-7b --tp 4 --pp 2 --topology 4x2 --gen 4 --json "$tmp/pp2.json"
contains "pp on a torus" "4x2, tensor parallel 4 x pipeline 2"
if grep -q '"link": "chip0 y+"' "$tmp/pp2.json" && grep -q '"utilisation"' "$tmp/pp2.json"; then ok; else bad "pp on a torus: json lacks per-link utilisation"; fi
# Batch 1: one micro-batch goes through both stages, so the pipeline only adds its sends.
expect_ok "pp 1 on a ring" "$roofsim" run --hw tpu_v4 --model llama-2-7b --tp 4 --topology 4 --gen 4 --json "$tmp/pp1.json"
tpot() { grep -E '^  "tpot_s"' "$1" | awk '{print $2}' | tr -d ,; }
if awk -v a="$(tpot "$tmp/pp2.json")" -v b="$(tpot "$tmp/pp1.json")" 'BEGIN { exit !(a > b) }'; then ok; else
  bad "pp 2 decode per token $(tpot "$tmp/pp2.json") s is not above pp 1's $(tpot "$tmp/pp1.json") s"; fi
expect_ok "tp not spanning leading dims: routed ring" "$roofsim" run --hw tpu_v4 --model llama-2-7b --tp 8 --pp 2 --topology 4x4x1 --gen 2
expect_ok "tp not spanning a ring: routed ring" "$roofsim" run --hw tpu_v4 --model llama-2-7b --tp 2 --pp 3 --topology 6 --gen 2
contains "uneven stages are stated" "the 32 layers split unevenly over 3 stages"
expect_ok "ep x tp on a torus" "$roofsim" run --hw tpu_v4 --model mixtral-8x7b --tp 2 --ep 4 --batch 8 --prompt 64 --gen 2
contains "ep on a torus routes all-to-alls" "tensor parallel 2 x expert parallel 4"
expect_error "routed all-to-all too large" "at most 512" "$roofsim" collective --hw tpu_v4 --topology 16x16x16 --op alltoall --bytes 1MiB
expect_error "routed on a switch" "a switch has no routes of links" "$roofsim" collective --op alltoall --algo routed
expect_ok "ep x tp" "$roofsim" run --model mixtral-8x7b --tp 2 --ep 4 --batch 8 --prompt 64 --gen 2
contains "ep x tp" "switch:8, tensor parallel 2 x expert parallel 4"
expect_ok "ep x tp x pp" "$roofsim" run --model mixtral-8x7b --tp 2 --ep 2 --pp 2 --batch 8 --prompt 64 --gen 2
contains "ep x tp x pp" "tensor parallel 2 x expert parallel 2 x pipeline 2"
expect_error "ep x microbatches" "--ep 4 x 2 micro-batches must divide the batch (6)" "$roofsim" run --model mixtral-8x7b --ep 4 --pp 2 --microbatches 2 --batch 6 --gen 2
expect_error "microbatches" "must divide the batch" "$roofsim" run --pp 2 --microbatches 2 --batch 3 --gen 2
expect_error "topology size" "needs 8" "$roofsim" run --model llama-2-70b --tp 8 --topology switch:4 --gen 2
expect_error "ep on a dense model" "has no experts" "$roofsim" run --ep 2 --batch 2 --gen 2
expect_error "ep not dividing experts" "must divide the 8 experts" "$roofsim" run --model mixtral-8x7b --ep 3 --batch 3 --gen 2
# The default workload: Poisson arrivals at 20/s with lognormal lengths, so p99 differs from p50;
# a ramp alone is the default closed loop's.
expect_ok "serve default workload" "$roofsim" serve --requests 40 --json "$tmp/serve_default.json"
contains "serve default arrivals" "Poisson arrivals at 20/s; prompt lognormal mean 1024 sd 512"
if python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); t = j["summary"]["ttft_s"]; sys.exit(0 if j["workload"]["arrivals"] == "poisson" and t["p99"] > 1.5 * t["p50"] else 1)' "$tmp/serve_default.json"; then ok; else bad "serve default: not Poisson, or p99 TTFT not above p50"; fi
expect_ok "serve ramp alone" "$roofsim" serve --ramp-ms 100 --requests 16
contains "serve prints its energy" "J per output token"
contains "serve prints its silicon" "output tokens/s per 100 mm2"
if grep -q '"tokens_per_s_per_kusd": [0-9]' "$tmp/serve_default.json"; then ok; else bad "serve json lacks tokens_per_s_per_kusd"; fi
if grep -q '"energy_per_token_j": [0-9]' "$tmp/serve_default.json"; then ok; else bad "serve json lacks energy_per_token_j"; fi
contains "serve ramp alone is a closed loop" "closed loop at concurrency 8"
expect_ok "serve with ep" "$roofsim" serve --model mixtral-8x7b --tp 2 --ep 2 --requests 8 --concurrency 4 --prompt 64 --output 4
contains "serve with ep names the layout" "switch:4, tensor parallel 2 x expert parallel 2"
expect_error "serve ep on a dense model" "--ep 2: Llama-3-8B has no experts" "$roofsim" serve --ep 2 --requests 2
expect_ok "serve ep with MTP drafts" "$roofsim" serve --model mixtral-8x7b --ep 2 --speculative-tokens 2 --requests 4 --prompt 64 --output 8
expect_ok "serve ep with swap" "$roofsim" serve --model mixtral-8x7b --ep 2 --kv-admission on_demand --kv-preemption swap --requests 4 --prompt 64 --output 8
expect_ok "serve ep disaggregated" "$roofsim" serve --model mixtral-8x7b --ep 2 --disaggregate --requests 4 --prompt 64 --output 8
contains "serve ep disaggregated names the ranks" "each 2 EP ranks"
# The roofline's lesson in one command: bandwidth speeds up batch-1 decode, FLOP/s speed up prefill.
expect_ok "whatif" "$roofsim" whatif --scale hbm.bandwidth=2 --scale compute=2,energy.tdp_w=2 --scale compute=2 --gen 8 --json "$tmp/whatif.json" --plot "$tmp/whatif.svg"
if grep -q "<svg" "$tmp/whatif.svg"; then ok; else bad "whatif plot"; fi
decode=($(grep -E '^      "decode_speedup"' "$tmp/whatif.json" | awk '{print $2}' | tr -d ,))
prefill=($(grep -E '^      "prefill_speedup"' "$tmp/whatif.json" | awk '{print $2}' | tr -d ,))
if awk -v bd="${decode[0]}" -v bp="${prefill[0]}" -v cd="${decode[1]}" -v cp="${prefill[1]}" \
     'BEGIN { exit !(bd > 1.6 && bp < 1.2 && cp > 1.4 && cd < 1.1 && bp >= 1 && cd >= 1) }'; then ok; else
  bad "whatif lesson: bandwidth x2 decode ${decode[0]} prefill ${prefill[0]}; compute x2 decode ${decode[1]} prefill ${prefill[1]}"; fi
# ... unless the power is short: twice the compute at the same TDP is power-bound (the third roof).
contains "whatif power-bound clock" "clock held at"
if awk -v p="${prefill[2]}" 'BEGIN { exit !(p > 1 && p < 1.15) }'; then ok; else bad "whatif compute x2 at the same TDP: prefill x${prefill[2]}"; fi
# ... and its energy: twice the bandwidth moves the same bits in less time (less static energy).
contains "whatif energy columns" "J/token"
energy=($(grep -E '^ *"energy_per_token_j"' "$tmp/whatif.json" | awk '{print $2}' | tr -d ,))
if awk -v a="${energy[0]}" -v b="${energy[1]}" 'BEGIN { exit !(a > 0 && b > 0 && b < a) }'; then ok; else
  bad "whatif energy per token: base ${energy[0]}, bandwidth x2 ${energy[1]}"; fi
expect_ok "run energy" "$roofsim" run --gen 4
contains "run prints energy" "J per output token"
contains "run prints power" "W per chip on average"
# Silicon and cost: the die the units add up to, its price, and tokens/s per mm2 and per dollar.
contains "run prints its die" "814 mm2 (matrix"
contains "run prints tokens per dollar" "tokens/s per 1,000 USD of chips"
expect_ok "hw show area" "$roofsim" hw show a100_sxm4_80gb
contains "hw show prints the die" "826 mm2"
contains "hw show prints the cost" "per wafer"
if python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); r = [j["base"]] + [x["result"] for x in j["variants"]]; a = [x["chip_area_mm2"] for x in r]; k = [x["tokens_per_s_per_kusd"] for x in r]; sys.exit(0 if a[0] == a[1] < a[2] and k[1] > k[0] else 1)' "$tmp/whatif.json"; then ok; else
  bad "whatif silicon: bandwidth x2 should keep the die and raise tokens per dollar, compute x2 grow the die"; fi
printf 'base = "tpu_v4"\n[cost]\nwafer_usd = 10000\ndefect_density_per_cm2 = 0.1\nhbm_usd_per_gb = 7\n' > "$tmp/cost_only.toml"
expect_error "cost without area" "cost_only.toml:3: cost.wafer_usd" "$roofsim" hw show "$tmp/cost_only.toml"
# explain: the gap to the bound, part by part, as text, JSON and CSV.
expect_ok "explain" "$roofsim" explain --gen 4 --json "$tmp/explain.json" --csv "$tmp/explain.csv"
contains "explain table" "time per output token"
for k in '"causes"' '"decode_step"' '"launch_s"' '"tiles_s"' '"gap_s"'; do
  if grep -qF -- "$k" "$tmp/explain.json"; then ok; else bad "explain json lacks $k"; fi; done
if head -1 "$tmp/explain.csv" | grep -q "clock_s"; then ok; else bad "explain csv header: $(head -1 "$tmp/explain.csv")"; fi
# op --explain: the same for one call's ops; each op's parts add up to its gap, and an fp8
# sliding-window prefill's FMHA owes most of its gap to latency (its CTAs' and key steps' cycles).
expect_ok "op explain" "$roofsim" op --attention prefill,4,2048,32,8,64 --kv-dtype fp8 --window 128 --explain --json "$tmp/opx.json"
if python3 - "$tmp/opx.json" <<'PY'
import json, sys
x = json.load(open(sys.argv[1]))["explain"]
assert [c["name"] for c in x["causes"]][-1] == "tiles"
for row in x["ops"] + [x["call"]]:
    assert abs(sum(row["parts"].values()) - row["gap_s"]) <= 1e-12, row
fmha = x["ops"][-1]["parts"]
assert max(fmha, key=fmha.get) == "latency_s", fmha
PY
then ok; else bad "op explain json: parts do not add up or the FMHA's gap is not mostly latency"; fi
expect_ok "op explain gemm" "$roofsim" op --gemm 1,4096,4096 --explain
contains "op explain table" "latency"
expect_error "op explain ideal" "--explain compares the chip with its ideal self" "$roofsim" op --gemm 1,4096,4096 --explain --ideal
# Near-memory compute wins batch-1 decode and loses at batch 64, where the chip's units win.
# A software what-if: the fused variant beside the base, its fused ops as new rows, faster decode.
expect_ok "whatif --with" "$roofsim" whatif --prompt 64 --gen 4 --with fuse=elementwise --json "$tmp/whatif_fuse.json"
contains "whatif --with: the fused op as a new row" "new "
contains "whatif --with: the variant named by its settings" "fuse=elementwise"
if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['variants'][0]['decode_speedup'] > 1.02 else 1)" "$tmp/whatif_fuse.json"; then ok; else bad "whatif --with fuse: decode not faster"; fi
expect_ok "whatif pim b1" "$roofsim" whatif --variant h100_pim --variant h100_2xbw --batch 1 --gen 4 --near-memory all --json "$tmp/pim1.json"
expect_ok "whatif pim b64" "$roofsim" whatif --variant h100_pim --batch 64 --gen 4 --near-memory all --json "$tmp/pim64.json"
pim1=($(grep -E '^      "decode_speedup"' "$tmp/pim1.json" | awk '{print $2}' | tr -d ,))
pim64=$(grep -E '^      "decode_speedup"' "$tmp/pim64.json" | awk '{print $2}' | tr -d ,)
if awk -v p="${pim1[0]}" -v b="${pim1[1]}" -v q="$pim64" 'BEGIN { exit !(p > 2.5 && p > b && q < 1) }'; then ok; else
  bad "near-memory: batch 1 speed-up ${pim1[0]} (2x bandwidth ${pim1[1]}), batch 64 speed-up $pim64"; fi
# Every roof a chip has: the near-memory units' own row, and a speed of light that reads their
# GEMVs' weights at the stacks' internal bandwidth (below the simulated step, not 2x above it).
expect_ok "roofline near memory" "$roofsim" roofline --hw h100_pim
contains "roofline near-memory row" "near-memory   25.6 TFLOP/s"
expect_ok "run near memory" "$roofsim" run --hw h100_pim --gen 4 --json "$tmp/pim_run.json"
contains "speed of light names the near-memory bandwidth" "near-memory units' GEMVs at their internal 13.40 TB/s"
if python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if 0 < j["decode_speed_of_light_s"] <= j["tpot_s"] else 1)' "$tmp/pim_run.json"; then ok; else bad "near-memory speed of light above the simulated step"; fi
expect_ok "whatif near memory chart" "$roofsim" whatif --hw h100_pim --scale hbm.bandwidth=2 --gen 4 --plot "$tmp/pim.svg"
if [ "$(grep -c 'near-memory roof' "$tmp/pim.svg")" -eq 2 ]; then ok; else bad "whatif chart lacks a near-memory roof per variant"; fi
# Sweeps: shards run separately merge into the same points as one run.
expect_ok "sweep all" "$roofsim" whatif --sweep batch=1,4,16 --gen 2 --prompt 64 --json "$tmp/sw_all.json"
expect_ok "sweep shard 0" "$roofsim" whatif --sweep batch=1,4,16 --gen 2 --prompt 64 --shard 0/2 --json "$tmp/sw0.json"
expect_ok "sweep shard 1" "$roofsim" whatif --sweep batch=1,4,16 --gen 2 --prompt 64 --shard 1/2 --json "$tmp/sw1.json"
expect_ok "sweep merge" "$roofsim" whatif --merge "$tmp/sw0.json" "$tmp/sw1.json" --json "$tmp/sw_merged.json" --plot "$tmp/sw.svg"
if diff -q <(grep -v '"shard"' "$tmp/sw_all.json") <(grep -v '"shard"' "$tmp/sw_merged.json") >/dev/null; then ok; else bad "merged shards differ from one sweep"; fi
if grep -q "<svg" "$tmp/sw.svg"; then ok; else bad "sweep plot"; fi
expect_error "bad shard" "expected I/N" "$roofsim" whatif --sweep batch=1,2 --shard 2/2
expect_error "bad sweep" "is not a positive number" "$roofsim" whatif --sweep batch=1,x
expect_error "whatif bad key" "has no number at 'foo.bar'" "$roofsim" whatif --scale foo.bar=2
expect_error "whatif no variant" "at least one variant" "$roofsim" whatif
# whatif takes every run flag, parallelism included, and runs its variants in-process.
expect_ok "whatif with tp" "$roofsim" whatif --model llama-3-70b --tp 8 --gen 2 --prompt 64 --scale hbm.bandwidth=2 --json "$tmp/w70.json" --csv "$tmp/w70.csv"
if grep -q '"tp": 8' "$tmp/w70.json" && grep -q '"schema_version": 1' "$tmp/w70.json"; then ok; else bad "whatif --tp 8 json"; fi
if head -1 "$tmp/w70.csv" | grep -q "variant" && [ "$(wc -l < "$tmp/w70.csv")" -eq 3 ]; then ok; else bad "whatif csv: $(head -2 "$tmp/w70.csv")"; fi
# A grid: every combination, in grid order; a point that does not fit is listed, not fatal.
expect_ok "sweep grid" "$roofsim" whatif --sweep batch=1,4 --sweep hbm.bandwidth_gb_per_s=3350,6700 --gen 2 --prompt 64 --json "$tmp/grid.json" --csv "$tmp/grid.csv" --plot "$tmp/grid.svg"
if [ "$(grep -c '"index"' "$tmp/grid.json")" -eq 4 ] && [ "$(wc -l < "$tmp/grid.csv")" -eq 5 ]; then ok; else bad "sweep grid has 4 points"; fi
# Its chart: a line per value of the second key, each named in the legend (not one zig-zag line).
for bw in 3350 6700; do
  if grep -q "throughput (tokens/s), hbm.bandwidth_gb_per_s = $bw" "$tmp/grid.svg"; then ok; else bad "sweep grid chart has no series for bandwidth $bw"; fi
done
# Worker processes give the same points as one process.
expect_ok "sweep grid -j 3" "$roofsim" whatif --sweep batch=1,4 --sweep hbm.bandwidth_gb_per_s=3350,6700 --gen 2 --prompt 64 -j 3 --json "$tmp/grid_j3.json"
if diff -q "$tmp/grid.json" "$tmp/grid_j3.json" >/dev/null; then ok; else bad "sweep -j 3 differs from -j 1"; fi
expect_ok "sweep point that does not fit" "$roofsim" whatif --model llama-2-13b --sweep batch=1,4096 --prompt 4000 --gen 2
contains "skipped point" "skipped:"
contains "skipped for memory" "does not fit"
expect_ok "hw keys" "$roofsim" hw keys
contains "hw keys" "hbm.bandwidth_gb_per_s"
# Invariant 6: the same inputs give byte-identical results (wall-clock fields aside).
"$roofsim" run --gen 4 --json "$tmp/d1.json" --csv "$tmp/d1.csv" >/dev/null 2>&1
"$roofsim" run --gen 4 --json "$tmp/d2.json" --csv "$tmp/d2.csv" >/dev/null 2>&1
if cmp -s "$tmp/d1.csv" "$tmp/d2.csv" && diff -q <(grep -v '"wall_s"' "$tmp/d1.json") <(grep -v '"wall_s"' "$tmp/d2.json") >/dev/null; then ok; else bad "run is not deterministic"; fi
"$roofsim" roofline --sweep --hw tpu_v4 --points 6 --json "$tmp/s1.json" >/dev/null 2>&1
"$roofsim" roofline --sweep --hw tpu_v4 --points 6 --json "$tmp/s2.json" >/dev/null 2>&1
if diff -q <(grep -v '"wall_s"' "$tmp/s1.json") <(grep -v '"wall_s"' "$tmp/s2.json") >/dev/null; then ok; else bad "sweep is not deterministic"; fi
printf 'id,hw,model,batch,prompt,generate,weights,activations,kv,launch,metric,reference,unit\nmine,h100_sxm5,llama-3-8b,1,64,4,bf16,bf16,bf16,graph,decode_tok_s,209,tok/s\n' > "$tmp/mine.csv"
# Decode attention on the vector units (TensorRT-LLM 0.9's kernel) binds on the SMs, not on
# HBM: H200's 1.43x bandwidth speeds a long-context decode step up much less than with fused
# attention, which streams the cache at HBM speed. Both ratios emerge from the simulation.
tpot() { "$roofsim" run --hw "$1" --model llama-2-7b --batch 64 --prompt 2048 --gen 2 --weights-dtype fp8 \
  --activations-dtype fp8 --kv-dtype fp8 --attention "$2" --json - 2>/dev/null | grep '"tpot_s"' | awk '{print $2}' | tr -d ,; }
fused_gain=$(awk -v a="$(tpot h100_sxm5 fused)" -v b="$(tpot h200_sxm fused)" 'BEGIN{print a/b}')
vector_gain=$(awk -v a="$(tpot h100_sxm5 vector)" -v b="$(tpot h200_sxm vector)" 'BEGIN{print a/b}')
if awk -v f="$fused_gain" -v v="$vector_gain" 'BEGIN{exit !(f > 1.3 && v > 1.0 && v < 1.15)}'; then ok; else
  bad "H200 over H100 decode step: fused ${fused_gain}x (want > 1.3), vector ${vector_gain}x (want 1.0-1.15)"; fi
expect_error "unknown attention" "--attention" "$roofsim" run --attention flash
printf 'id,hw,model\nbad,h100_sxm5,llama-3-8b\n' > "$tmp/bad_cases.csv"
mkdir -p "$tmp/kern" && printf 'gemm_dtype,m,n,k,latency\nbfloat16,64,64,64,0.003\nbfloat16,64,x,64,0.003\n' >"$tmp/kern/gemm.csv"
expect_error "validate --kernels bad row" "gemm.csv:3: n: expected an integer, got 'x'" "$roofsim" validate --kernels "$tmp/kern" --report "$tmp/v/k.md"
printf 'gemm_dtype,m,n,k,latency\nbfloat16,64,64,64,0.003\n' >"$tmp/kern/gemm.csv"
expect_ok "validate --kernels" "$roofsim" validate --kernels "$tmp/kern" --report "$tmp/v/k.md" --json "$tmp/v/k.json"
contains "validate --kernels table" "gemm bf16"
contains "validate --kernels default hardware" "simulated on h100_sxm5"
mkdir -p "$tmp/h200_sxm" && cp "$tmp/kern/gemm.csv" "$tmp/h200_sxm/"
expect_ok "validate --kernels named folder" "$roofsim" validate --kernels "$tmp/h200_sxm" --report "$tmp/v/k3.md"
contains "validate --kernels hardware from the folder's name" "simulated on h200_sxm"
# Rows in types or ops roofsim does not model are listed as not simulated, the rest simulated.
mkdir -p "$tmp/a100" && printf 'gemm_dtype,m,n,k,latency\nbfloat16,64,64,64,0.003\nfp8,64,64,64,0.005\nnvfp4,64,64,64,0.004\n' >"$tmp/a100/gemm.csv"
printf 'op_name,nccl_dtype,num_gpus,message_size,latency\nall_reduce,half,8,4096,0.02\nbroadcast,half,8,4096,0.02\n' >"$tmp/a100/nccl.csv"
expect_ok "validate --kernels unmodelled rows" "$roofsim" validate --kernels "$tmp/a100" --report "$tmp/v/k4.md"
contains "validate --kernels: no fp8 on the A100" "gemm fp8: a100_sxm4_80gb does not compute in fp8"
contains "validate --kernels: no nvfp4 on the A100" "gemm nvfp4: a100_sxm4_80gb does not compute in nvfp4"
contains "validate --kernels: broadcast listed" "op_name 'broadcast'"
contains "validate --kernels: the rest simulated" "2 measured kernel rows simulated on a100_sxm4_80gb"
mkdir -p "$tmp/b200" && printf 'gemm_dtype,m,n,k,latency\nnvfp4,1024,4096,4096,0.02\nint4_awq,16,64,64,0.004\n' >"$tmp/b200/gemm.csv"
expect_ok "validate --kernels nvfp4 on a B200" "$roofsim" validate --kernels "$tmp/b200" --report "$tmp/v/k5.md"
contains "validate --kernels: nvfp4 simulated on the B200" "1 measured kernel rows simulated on b200"
contains "validate --kernels: an unmodelled type listed" "gemm_dtype 'int4_awq' is not modelled"
# search takes serve's workload and scheduler flags: the same help, the same defaults.
for f in --prompt --output --max-batch --max-tokens --slo-ttft-ms --slo-tpot-ms; do
  a=$("$roofsim" serve --help | grep -E -- "^ +$f (TEXT|INT|FLOAT)" | sed 's/^ *//')
  b=$("$roofsim" search --help | grep -E -- "^ +$f (TEXT|INT|FLOAT)" | sed 's/^ *//')
  if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad "search $f differs from serve's: '$b' vs '$a'"; fi
done
# search runs a stack's server as its [serving] table says (here 200 ms of host time per
# iteration): every decode step takes at least that.
printf '[stack]\nname = "slowhost"\ndescription = "d"\n[serving]\niteration_overhead_us = 200000\n[provenance]\n"serving.iteration_overhead_us" = "a test"\n' >"$tmp/slowhost.toml"
expect_ok "search --stack" "$roofsim" search --model llama-3-8b --gpus 1 --concurrency 1 --prompt 64 --output 4 --requests-per-client 1 --stack "$tmp/slowhost.toml" --json "$tmp/v/search.json"
if python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["points"][0]; sys.exit(0 if p["tpot_mean_s"] >= 0.2 else 1)' "$tmp/v/search.json"; then ok; else
  bad "search --stack: the stack's 200 ms per iteration wants TPOT >= 0.2 s: $(cat "$tmp/v/search.json")"; fi
# Every CSV of the folder is read or named: vLLM's GEMM table and the weight-only one are
# simulated, another file is listed as skipped (text and JSON); a custom all-reduce table that
# does not say which kernel ran is not blamed on eager launches.
mkdir -p "$tmp/every" && printf 'framework,kernel_source,gemm_dtype,m,n,k,latency\nVLLM,torch.nn.functional.linear,bfloat16,64,64,64,0.003\n' >"$tmp/every/gemm_vllm.csv"
printf 'gemm_dtype,m,n,k,latency\nint4_wo,16,4096,4096,0.02\nint8_wo,16,4096,4096,0.02\nsq,16,4096,4096,0.02\n' >"$tmp/every/gemm_weight_only.csv"
printf 'op_name,allreduce_dtype,num_gpus,message_size,latency\nall_reduce,bfloat16,8,4096,0.01\n' >"$tmp/every/custom_allreduce_other.csv"
printf 'op_name,kernel_source,allreduce_dtype,num_gpus,message_size,latency\nall_reduce,mystery,bfloat16,8,4096,0.01\n' >"$tmp/every/custom_allreduce_vllm.csv"
printf 'a,b\n1,2\n' >"$tmp/every/notes.csv"
# vLLM's block-fp8 linear, timed without a CUDA graph: a tiny call costs its path's host time
# (configs/stacks/vllm.toml [eager_calls]: 60 us for FlashInfer's); a path without one is listed.
printf 'framework,kernel_source,gemm_dtype,m,n,k,latency\nVLLM,FlashInferFp8BlockScaledMMKernel,fp8_block,1,128,128,0.06\nVLLM,MysteryKernel,fp8_block,1,128,128,0.06\n' >"$tmp/every/gemm_vllm.csv"
expect_ok "validate --kernels eager calls" "$roofsim" validate --kernels "$tmp/every" --report "$tmp/v/k6.md" --rows-csv "$tmp/v/rows6.csv"
if awk -F, 'NR > 1 && $3 == "gemm vllm fp8_block" { s = $7 } END { exit !(s > 59e-6 && s < 62e-6) }' "$tmp/v/rows6.csv"; then ok; else
  bad "validate --kernels: an eager FlashInfer block-fp8 call wants ~60 us: $(cat "$tmp/v/rows6.csv")"; fi
contains "validate --kernels: a path without host time listed" "kernel_source 'MysteryKernel'"
# A TensorRT engine's plugin layer, timed by TensorRT's profiler: a tiny weight-only GEMV layer
# holds its plugin's enqueue (configs/stacks/trtllm-1.x.toml [profiled_layers]: 3.7 us for at
# most 4 tokens, 5.4 for more) on top of the ~2.6 us kernel; a plugin without one is listed.
printf 'framework,kernel_source,gemm_dtype,m,n,k,latency\nTRTLLM,trt_flow_/l/PLUGIN_V2_WeightOnlyQuantMatmul_0,int4_wo,1,32,32,0.007\nTRTLLM,trt_flow_/l/PLUGIN_V2_WeightOnlyQuantMatmul_0,int4_wo,16,32,32,0.009\nTRTLLM,trt_flow_/l/PLUGIN_V2_MysteryGemm_0,sq,16,32,32,0.009\n' >"$tmp/every/gemm_weight_only.csv"
expect_ok "validate --kernels profiled layers" "$roofsim" validate --kernels "$tmp/every" --report "$tmp/v/k8.md" --rows-csv "$tmp/v/rows8.csv"
if awk -F, 'NR > 1 && $6 == "1x32x32" { a = $7 } NR > 1 && $6 == "16x32x32" { b = $7 } END { exit !(a > 5.8e-6 && a < 7e-6 && b - a > 1.6e-6 && b - a < 1.8e-6) }' "$tmp/v/rows8.csv"; then ok; else
  bad "validate --kernels: profiled weight-only layers want ~6.3 us (GEMV path) and 1.7 us more (CUTLASS path): $(cat "$tmp/v/rows8.csv")"; fi
contains "validate --kernels: a plugin without host time listed" "gives no host time for 'MysteryGemm_cutlass'"
# Above 4 tokens the plugin's profiler also times its CUDA-core GEMV as a tactic (its dispatcher
# takes up to 15 tokens): at 8 tokens and a long K over few columns the GEMV runs, well under the
# CUTLASS kernel that 16 tokens get (measured on H200: 10.8 and 21.5 us).
printf 'framework,kernel_source,gemm_dtype,m,n,k,latency\nTRTLLM,trt_flow_/l/PLUGIN_V2_WeightOnlyQuantMatmul_0,int4_wo,8,512,8192,0.0108\nTRTLLM,trt_flow_/l/PLUGIN_V2_WeightOnlyQuantMatmul_0,int4_wo,16,512,8192,0.0215\n' >"$tmp/every/gemm_weight_only.csv"
expect_ok "validate --kernels GEMV tactic" "$roofsim" validate --kernels "$tmp/every" --report "$tmp/v/k9.md" --rows-csv "$tmp/v/rows9.csv"
if awk -F, 'NR > 1 && $6 == "8x512x8192" { a = $7 } NR > 1 && $6 == "16x512x8192" { b = $7 } END { exit !(a > 0 && a < 0.7 * b) }' "$tmp/v/rows9.csv"; then ok; else
  bad "validate --kernels: 8 tokens want the GEMV tactic, well under 16 tokens' CUTLASS kernel: $(cat "$tmp/v/rows9.csv")"; fi
printf 'gemm_dtype,m,n,k,latency\nint4_wo,16,4096,4096,0.02\nint8_wo,16,4096,4096,0.02\nsq,16,4096,4096,0.02\n' >"$tmp/every/gemm_weight_only.csv"
printf 'framework,kernel_source,gemm_dtype,m,n,k,latency\nVLLM,torch.nn.functional.linear,bfloat16,64,64,64,0.003\n' >"$tmp/every/gemm_vllm.csv"
expect_ok "validate --kernels every file" "$roofsim" validate --kernels "$tmp/every" --report "$tmp/v/k6.md" --json "$tmp/v/k6.json"
contains "validate --kernels: vLLM's table" "gemm vllm bf16"
contains "validate --kernels: each table's stack said" "gemm_weight_only.csv: with the trtllm-1.x stack's kernel parameters"
contains "validate --kernels: weight-only rows" "4 measured kernel rows simulated"
contains "validate --kernels: an unknown file named" "skipped notes.csv: not a kernel table roofsim reads"
contains "validate --kernels: a second unknown file named" "skipped custom_allreduce_other.csv"
contains "validate --kernels: an unnamed all-reduce kernel said so" "does not say which kernel ran"
if python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["skipped_files"]; sys.exit(0 if [x["file"] for x in s] == ["custom_allreduce_other.csv", "notes.csv"] else 1)' "$tmp/v/k6.json"; then ok; else
  bad "validate --kernels: skipped_files in the JSON: $(cat "$tmp/v/k6.json")"; fi
# A table's name on a folder is named as skipped, not read; with nothing else there the error
# says so.
mkdir -p "$tmp/dirtable/gemm.csv"
expect_error "validate --kernels: a folder under a table's name" "skipped: gemm.csv (not a regular file)" "$roofsim" validate --kernels "$tmp/dirtable" --report "$tmp/v/k7.md"
# A row measured at ten times the simulated ~3 us is counted apart (an outlier population no
# kernel mechanism explains: docs/calibration.md, the MoE rows that ran untuned).
printf 'gemm_dtype,m,n,k,latency\nbfloat16,64,64,64,0.003\nbfloat16,64,64,64,0.03\n' >"$tmp/kern/gemm.csv"
expect_ok "validate --kernels outlier" "$roofsim" validate --kernels "$tmp/kern" --report "$tmp/v/k.md" --json "$tmp/v/k.json"
if python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))["families"][0]; sys.exit(0 if f["rows_measured_twice_simulated"] == 1 and f["rows"] == 2 else 1)' "$tmp/v/k.json"; then ok; else
  bad "validate --kernels: want 1 of 2 rows counted as measured >= 2x simulated: $(cat "$tmp/v/k.json")"; fi
# Where a row's reads come from: a table's weight_copies column, else the public collector's
# rotation (framework TRTLLM), else HBM. 4 MiB of weights: one copy or the collector's five fit
# the L2's resident share, 16 copies do not; a bad count is refused at its line.
printf 'framework,gemm_dtype,m,n,k,latency,weight_copies\ntorch,bfloat16,16,2048,1024,0.004,1\ntorch,bfloat16,16,2048,1024,0.004,16\nTRTLLM,bfloat16,16,2048,1024,0.004,\nother,bfloat16,16,2048,1024,0.004,\n' >"$tmp/kern/gemm.csv"
expect_ok "validate --kernels reads" "$roofsim" validate --kernels "$tmp/kern" --report "$tmp/v/k.md" --rows-csv "$tmp/v/rows.csv"
if [ "$(cut -d, -f5 "$tmp/v/rows.csv" | tail -n +2 | tr '\n' ' ')" = "l2 hbm l2 hbm " ]; then ok; else
  bad "validate --kernels: reads per row want 'l2 hbm l2 hbm': $(cat "$tmp/v/rows.csv")"; fi
contains "validate --kernels: rows from the L2 counted" "2 rows read their operands from the L2"
# MoE rows say whether their benchmark could find tuned tactics: the collector's glob finds
# ..._16 for 16 experts over EP 16 (name ..._1), a runner with another EP; 32 experts over EP 2
# at top-4 share ..._16 with 16 experts on one rank at top-2; the two cases of 8 experts (one
# runner, two routings) find only their own.
mkdir -p "$tmp/moek" && printf 'moe_dtype,num_tokens,hidden_size,inter_size,topk,num_experts,moe_tp_size,moe_ep_size,distribution,kernel_source,latency\nbfloat16,64,1024,512,2,16,1,16,balanced,moe_torch_flow_cutlass,0.03\nbfloat16,64,1024,512,2,16,1,1,balanced,moe_torch_flow_cutlass,0.03\nbfloat16,64,1024,512,4,32,1,2,balanced,moe_torch_flow_cutlass,0.03\nbfloat16,64,1024,512,2,8,1,1,balanced,moe_torch_flow_cutlass,0.03\nbfloat16,64,1024,512,2,8,1,1,power_law_1.2,moe_torch_flow_cutlass,0.03\n' >"$tmp/moek/moe.csv"
expect_ok "validate --kernels tuning cache" "$roofsim" validate --kernels "$tmp/moek" --report "$tmp/v/k6.md" --rows-csv "$tmp/v/moe_rows.csv" --json "$tmp/v/moe.json"
if [ "$(awk -F, 'NR > 1 {print $NF}' "$tmp/v/moe_rows.csv" | tr '\n' ' ')" = "foreign foreign foreign own own " ]; then ok; else
  bad "validate --kernels: tuning_cache per row want 'foreign foreign foreign own own': $(cat "$tmp/v/moe_rows.csv")"; fi
if python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["families"][0]["by_tuning_cache"]; sys.exit(0 if [(x["name"], x["rows"]) for x in c] == [("own", 2), ("foreign", 3)] else 1)' "$tmp/v/moe.json"; then ok; else
  bad "validate --kernels: by_tuning_cache want own 2, foreign 3: $(cat "$tmp/v/moe.json")"; fi
printf 'family,max_mape_percent\nmoe bfloat16 (own tuning cache),1000\nmoe bfloat16 (foreign tuning cache),0.001\n' >"$tmp/v/moe_limits.csv"
expect_error "validate --kernels limit on foreign-cache rows" "moe_limits.csv:3: moe bfloat16 (foreign tuning cache): MAPE" "$roofsim" validate --kernels "$tmp/moek" --report "$tmp/v/k6.md" --limits "$tmp/v/moe_limits.csv"
printf 'gemm_dtype,m,n,k,latency,weight_copies\nbfloat16,16,2048,1024,0.004,0\n' >"$tmp/kern/gemm.csv"
expect_error "validate --kernels bad weight_copies" "gemm.csv:2: weight_copies" "$roofsim" validate --kernels "$tmp/kern" --report "$tmp/v/k.md"
expect_error "validate --kernels empty folder" "no kernel tables" "$roofsim" validate --kernels "$tmp/v" --report "$tmp/v/k2.md"
sed 's/^tile_efficiency = 0.84/tile_efficiency = 0.99/' "$(dirname "$0")/../configs/hardware/h100_sxm5.toml" >"$tmp/tile_eff.toml"
expect_error "tile efficiency above streaming" "hbm.tile_efficiency: must not exceed efficiency" "$roofsim" op --hw "$tmp/tile_eff.toml" --gemm 64,64,64
sed 's/^kernel_k_bytes = 128/kernel_k_bytes = 0/' "$(dirname "$0")/../configs/hardware/h100_sxm5.toml" >"$tmp/kk0.toml"
expect_error "kernel_k_bytes 0" "matrix.kernel_k_bytes: expected a positive integer, got 0" "$roofsim" op --hw "$tmp/kk0.toml" --gemm 64,64,64
expect_error "validate bad cases" "missing column 'batch'" "$roofsim" validate --quick --cases "$tmp/bad_cases.csv" --report "$tmp/v/r.md"
expect_ok "cases list" "$roofsim" cases list
contains "cases list" "TTFT-H100-TRT090-Llama-2-7B-tp1-128"
expect_error "unknown case" "no public case" "$roofsim" cases run NOPE
# Measured serving runs: every 60th row (3 rows), the per-row CSV with requests/s and the chart.
expect_ok "cases serving" "$roofsim" cases serving --every 60 --csv "$tmp/serving_cases.csv" --plot "$tmp/serving_cases.svg"
contains "cases serving requests/s" "requests/s"
if head -1 "$tmp/serving_cases.csv" | grep -q "requests_per_s,sim_requests_per_s,requests_per_s_error,waiting,sim_waiting"; then ok; else bad "cases serving csv columns"; fi
if [ "$(wc -l < "$tmp/serving_cases.csv")" -eq 4 ]; then ok; else bad "cases serving csv: 3 rows expected"; fi
if grep -q "<svg" "$tmp/serving_cases.svg"; then ok; else bad "cases serving plot is not an svg"; fi
# Coloured by concurrency band (rows 1, 61, 121 hold 8, 32 and 64 clients), not one legend entry per value.
if grep -q "concurrency 5-16" "$tmp/serving_cases.svg" && grep -q "concurrency 17-64" "$tmp/serving_cases.svg" &&
   ! grep -q "concurrency 8<" "$tmp/serving_cases.svg"; then ok; else bad "cases serving plot: concurrency bands in the legend"; fi
# Every row runs: a malformed row is listed with its file line and the rest still run (exit 0,
# 1 with --strict); a blank concurrency is assumed and said; a file without a required column exits 2.
printf 'id,model_path,system,mode,isl,osl,batch_size,tp_size,silicon_ttft_ms,silicon_tpot_ms,silicon_concurrency,extra\n' > "$tmp/rows.csv"
printf 'good,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,512,16,4,1,50,8,,x\n' >> "$tmp/rows.csv"
printf 'bad,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,512,16,4,two,50,8,4,x\n' >> "$tmp/rows.csv"
expect_ok "cases serving with a bad row" "$roofsim" cases serving "$tmp/rows.csv" --json "$tmp/rows.json"
if python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert len(j['cases'])==1 and 'ttft_error' in j['cases'][0]; n=j['not_simulated'][0]; assert n['id']=='bad' and n['line']==3 and 'tp_size' in n['reason']; assert j['assumptions'][0]['rows']==1" "$tmp/rows.json"; then ok; else bad "cases serving json: one case, the bad row listed with line 3, one assumption"; fi
"$roofsim" cases serving "$tmp/rows.csv" --strict >"$tmp/out" 2>"$tmp/err"; code=$?
if [ "$code" -eq 1 ]; then ok; else bad "cases serving --strict with a bad row: exit $code, expected 1"; fi
contains "cases serving lists the row" "rows.csv:3: bad: tp_size"
# A row whose deployment is given in full is counted apart from one that leaves its concurrency
# to an assumption (text and JSON deployment_given).
printf 'full,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,512,16,4,1,50,8,4,x\n' >> "$tmp/rows.csv"
expect_ok "cases serving deployment given" "$roofsim" cases serving "$tmp/rows.csv" --json "$tmp/rows2.json"
contains "cases serving: rows with their whole deployment" "rows that give their whole deployment (1;"
if python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['deployment_given']['rows']==1; assert sorted(c['deployment_assumed'] for c in j['cases'])==[False, True]" "$tmp/rows2.json"; then ok; else bad "cases serving json: deployment_given over 1 row, one case assumed"; fi
contains "cases serving says the assumption" "concurrency blank: taken as the deployment's batch limit, 4"
printf 'id,model_path,system,mode,isl,osl\nx,a,h100_sxm,agg,1,1\n' > "$tmp/nocol.csv"
expect_error "cases serving required column" "silicon_ttft_ms: required column missing" "$roofsim" cases serving "$tmp/nocol.csv"
expect_error "cases serving plot extension" "--plot $tmp/x.gif: expected a .png or .svg" "$roofsim" cases serving --plot "$tmp/x.gif"

expect_error "unknown preset" "--hw 'h999': unknown hardware preset" "$roofsim" roofline --hw h999
expect_error "hardware typo" "--hw 'h100_sxm': unknown hardware preset; did you mean h100_sxm5?" "$roofsim" roofline --hw h100_sxm
expect_error "hardware name cut short" "--hw 'a100_sxm': unknown hardware preset; did you mean a100_sxm4_80gb?" "$roofsim" roofline --hw a100_sxm
expect_error "model typo" "--model 'llama3-8b': unknown models preset; did you mean llama-3-8b?" "$roofsim" run --model llama3-8b
expect_error "hub name without its organisation" "did you mean Qwen/Qwen3-32B?" "$roofsim" run --model qwen3-32b
expect_error "unknown option" "--modle: unknown option; did you mean --model?" "$roofsim" run --modle llama-3-8b
expect_error "unknown option, no guess" "--qqq: unknown option (roofsim SUBCOMMAND --help" "$roofsim" run --qqq 3
expect_error "missing file" "no such file" "$roofsim" roofline --hw /nonexistent.toml
expect_error "bad gemm" "expected M,N,K" "$roofsim" roofline --gemm 1,2
expect_error "zero gemm" "must be positive" "$roofsim" roofline --gemm 0,4096,4096
expect_error "bad dtype" "unknown dtype" "$roofsim" roofline --dtype bf17
expect_error "unknown flag" "--frobnicate" "$roofsim" roofline --frobnicate
expect_error "model too big" "does not fit in one NVIDIA H100" "$roofsim" run --model llama-2-70b
sed 's/^units = 132/units = -1/' "$(dirname "$0")/../configs/hardware/h100_sxm5.toml" > "$tmp/neg.toml"
units_line=$(grep -n '^units = -1' "$tmp/neg.toml" | head -1 | cut -d: -f1)  # the line the message must name
expect_error "negative units" "neg.toml:$units_line: matrix.units: expected a positive integer, got -1" "$roofsim" roofline --hw "$tmp/neg.toml"
printf '[chip\n' > "$tmp/syntax.toml"
expect_error "syntax error" "syntax.toml:1" "$roofsim" roofline --hw "$tmp/syntax.toml"

# Scale-out (docs/scale-out.md): nodes joined by the network, hierarchical collectives, replicas.
expect_ok "collective across nodes" "$roofsim" collective --hw h100_sxm5 --topology nodes:2x8 --op allreduce --bytes 1GiB
contains "collective across nodes is hierarchical" "hierarchical"
expect_ok "run on two nodes" "$roofsim" run --model llama-2-70b --tp 8 --pp 2 --nodes 2 --gen 2 --prompt 64 --json "$tmp/nodes.json"
contains "run on two nodes names its topology" "nodes:2x8"
python3 - "$tmp/nodes.json" <<'PY' && ok || bad "run on two nodes JSON"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["topology"] == "nodes:2x8" and j["nodes"] == 2 and j["replicas"] == 1 and j["chips_total"] == 16, j
assert any(l["link"].endswith("->net") and l["bytes"] > 0 for l in j["links"])
PY
expect_ok "replicas" "$roofsim" run --model llama-3-8b --tp 8 --replicas 4 --nodes 4 --gen 2 --prompt 64 --json "$tmp/rep.json"
contains "replicas report per replica and total" "all 4 replicas"
python3 - "$tmp/rep.json" <<'PY' && ok || bad "replicas JSON"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["replicas"] == 4 and j["chips_total"] == 32 and j["topology"] == "switch:8", j
assert abs(j["total_throughput_tok_s"] - 4 * j["replica_throughput_tok_s"]) < 1e-6 * j["total_throughput_tok_s"]
assert j["throughput_tok_s"] == j["replica_throughput_tok_s"]
PY

# Every result records its settings, and --from runs it again: the same results (wall times
# aside), a flag on top changing what it names.
same_result() {  # same_result NAME A.json B.json
  if python3 - "$2" "$3" <<'PY'; then ok; else bad "$1: the results differ"; fi
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k not in ("wall_s", "sim_wall_s", "events_per_s", "peak_memory_bytes", "source")}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
a, b = (strip(json.load(open(f))) for f in sys.argv[1:3])
sys.exit(0 if a == b else 1)
PY
}
expect_ok "run records its settings" "$roofsim" run --model mixtral-8x7b --tp 2 --ep 2 --batch 4 --gen 4 --stack trtllm-1.x --json "$tmp/r1.json"
expect_ok "run --from" "$roofsim" run --from "$tmp/r1.json" --json "$tmp/r2.json"
same_result "run --from gives the same run" "$tmp/r1.json" "$tmp/r2.json"
expect_ok "run --from with a flag" "$roofsim" run --from "$tmp/r1.json" --batch 8 --json "$tmp/r3.json"
if python3 -c 'import json, sys; a, b = (json.load(open(f))["settings"] for f in sys.argv[1:3]); sys.exit(0 if b["batch"] == 8 and {**a, "batch": 8} == b else 1)' "$tmp/r1.json" "$tmp/r3.json"; then ok; else
  bad "run --from with --batch 8: only the batch changes"; fi
expect_ok "serve records its settings" "$roofsim" serve --concurrency 8 --requests 24 --stack vllm --prompt normal:500:100 --output 64 --json "$tmp/s1.json"
expect_ok "serve --from" "$roofsim" serve --from "$tmp/s1.json" --json "$tmp/s2.json"
same_result "serve --from gives the same serving run" "$tmp/s1.json" "$tmp/s2.json"
# A file's work guard holds (the flag's default used to overwrite it).
printf '[experiment]\nmax_events = 1\n' > "$tmp/guard.toml"
expect_error "experiment file max_events" "more than the limit" "$roofsim" run "$tmp/guard.toml" --gen 2
expect_ok "collective records its settings" "$roofsim" collective --op allgather --bytes 8MiB --group 4 --concurrent 2 --json "$tmp/c1.json"
expect_ok "collective --from" "$roofsim" collective --from "$tmp/c1.json" --json "$tmp/c2.json"
same_result "collective --from gives the same collective" "$tmp/c1.json" "$tmp/c2.json"
expect_ok "serve --from with other arrivals" "$roofsim" serve --from "$tmp/s1.json" --rate 4 --json "$tmp/s3.json"
if python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["settings"]; sys.exit(0 if s["rate"] == 4 and s["concurrency"] is None and s["stack"] == "vllm" else 1)' "$tmp/s3.json"; then ok; else
  bad "serve --from with --rate: Poisson arrivals, the rest as recorded"; fi

echo "cli: $passes passed, $fails failed"
[ $fails -eq 0 ]
