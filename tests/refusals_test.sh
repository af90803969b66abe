#!/usr/bin/env bash
# Bad input gets one located message and exit 2 - never a crash, a hang or a wrong answer.
# One case per defect the bad-input campaign found (issue 14); tests/bad_input/campaign.py runs
# thousands more.
set -u
roofsim="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "$0")/.." && pwd)"
hw="$here/configs/hardware"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# refused NAME PATTERN CMD... : exit 2 within 30 s, stderr contains PATTERN, no second line of error
refused() {
  local name="$1" pattern="$2"; shift 2
  timeout 30 "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2: $(head -3 "$tmp/err")"; return; fi
  if ! grep -qF -- "$pattern" "$tmp/err"; then bad "$name: stderr lacks '$pattern': $(cat "$tmp/err")"; return; fi
  ok
}
# hw_with KEY VALUE: a copy of h100_sxm5.toml with one value replaced
hw_with() {
  local key="$1" value="$2" table="${1%%.*}" name="${1#*.}"
  awk -v t="[$table]" -v k="$name" -v v="$value" '
    /^\[/ { in_t = ($0 == t) }
    in_t && $1 == k { print k " = " v; next }
    { print }' "$hw/h100_sxm5.toml" > "$tmp/hw.toml"
  grep -q "^$name = $value\$" "$tmp/hw.toml" || { echo "hw_with: $key not found"; exit 1; }
  echo "$tmp/hw.toml"
}
# The line of `key` (table.name) in the preset h100_sxm5.toml, as hw_with leaves it.
line_of() {
  local table="${1%%.*}" name="${1#*.}"
  awk -v t="[$table]" -v k="$name" '/^\[/ { in_t = ($0 == t) } in_t && $1 == k { print NR; exit }' "$hw/h100_sxm5.toml"
}

# A folder is no config file: say so rather than parse it.
refused "model folder" "a folder without a config.json in it, not a file" "$roofsim" run --model /
refused "hw folder" "a folder, not a file" "$roofsim" run --hw /tmp/
# explain compares the chip with its ideal self: --ideal leaves nothing to explain.
refused "explain ideal" "leave --ideal out" "$roofsim" explain --ideal --gen 2
# Ranges after unit conversion: a bandwidth of 1e-300 GB/s once ran a GEMM faster than the chip.
refused "tiny bandwidth" "hw.toml:$(line_of hbm.bandwidth_gb_per_s): hbm.bandwidth_gb_per_s: 1e-300 GB/s is outside" \
  "$roofsim" op --hw "$(hw_with hbm.bandwidth_gb_per_s 1e-300)" --gemm 4096,4096,4096
refused "huge clock" "matrix.clock_mhz: 1e+308 MHz is outside" "$roofsim" op --hw "$(hw_with matrix.clock_mhz 1e308)" --gemm 64,64,64
refused "huge link latency" "links.latency_ns: 1e+308 ns is outside" \
  "$roofsim" collective --hw "$(hw_with links.latency_ns 1e308)" --bytes 1MiB
refused "sub-byte request" "dma.request_bytes: 0.5 bytes is outside" "$roofsim" op --hw "$(hw_with dma.request_bytes 0.5)" --gemm 64,64,64
refused "tiny efficiency" "hbm.efficiency: 1e-300 is outside" "$roofsim" op --hw "$(hw_with hbm.efficiency 1e-300)" --gemm 64,64,64

# Sizes: overflow and unbounded loops on user sizes.
refused "gen near int64" "--gen: '9223372036854775807' is not a whole number from 1 to" "$roofsim" run --gen 9223372036854775807
refused "decode stride beyond gen" "--decode-stride 9: must be between 0 and 8" "$roofsim" run --gen 8 --decode-stride 9
refused "decode stride near int32" "--decode-stride: '2147483648' is not a whole number from 1 to" "$roofsim" run --gen 8 --decode-stride 2147483648
refused "pp near int64" "--pp: '9223372036854775807' is not a whole number from 1 to" "$roofsim" run --pp 9223372036854775807
refused "gemm operand beyond 2^48" "more than 2^48 elements" "$roofsim" op --gemm 4294967296,4294967296,8
# op --attention: the six fields, heads that split into KV groups, the attention-only flags.
refused "attention fields" "expected prefill|decode,BATCH,TOKENS,HEADS,KV_HEADS,HEAD_DIM" "$roofsim" op --attention decode,64,2048,32,8
refused "attention kind" "expected prefill|decode" "$roofsim" op --attention encode,64,2048,32,8,128
refused "attention zero" "BATCH must be a whole number from 1 to 2^24" "$roofsim" op --attention decode,0,2048,32,8,128
refused "attention groups" "KV_HEADS (5) must divide HEADS (32)" "$roofsim" op --attention decode,1,2048,32,5,128
refused "attention beyond 2^48" "beyond 2^48 elements" "$roofsim" op --attention prefill,16777216,16777216,64,8,128
refused "window without attention" "--window and --kv-dtype go with --attention" "$roofsim" op --gemm 64,64,64 --window 128
refused "attention kernel" "--attention-kernel: unknown attention 'flash'" "$roofsim" op --attention decode,1,64,8,8,64 --attention-kernel flash
refused "moe fields" "expected TOKENS,HIDDEN,INTER,EXPERTS,TOPK[,TP,EP]" "$roofsim" op --moe 256,4096,14336,8
refused "moe topk" "top-k 9 is more than the 8 experts" "$roofsim" op --moe 256,4096,14336,8,9
refused "moe ep" "EP 16 is more than the 8 experts" "$roofsim" op --moe 256,4096,14336,8,2,1,16
refused "moe routing" "expected balanced or power_law:A" "$roofsim" op --moe 256,4096,14336,8,2 --routing zipf
refused "routing without moe" "--routing goes with --moe" "$roofsim" op --gemm 64,64,64 --routing power_law:1.2
refused "block scales on bf16" "--scale-block 128: block scales go with --gemm or --moe and --dtype fp8" "$roofsim" op --gemm 64,64,64 --scale-block 128
refused "block scales of 0" "--scale-block" "$roofsim" op --gemm 64,64,64 --dtype fp8 --scale-block 0
refused "L2-resident op beyond the L2" "--l2-resident: the op touches 402.653 MB, more than the 35.127 MB of onchip.l2" \
  "$roofsim" op --gemm 8192,8192,8192 --l2-resident
refused "L2-resident attention" "--l2-resident goes with --gemm, --elementwise or --reduce" \
  "$roofsim" op --attention decode,1,1024,32,8,128 --l2-resident
refused "attention and gemm" "give exactly one of --gemm, --elementwise, --reduce, --attention" "$roofsim" op --gemm 64,64,64 --attention decode,1,64,8,8,64
refused "batch zero" "--batch: '0' is not a whole number from 1 to 1048576" "$roofsim" run --batch 0
refused "tolerance nan" "--tolerance: 'nan' is not a positive number" "$roofsim" cases run MB-H100-VADD --tolerance nan
refused "concurrent range" "--concurrent: '0' is not a whole number from 1 to 64" "$roofsim" collective --concurrent 0
refused "bytes below one" "--bytes: '0.4' is not a size from 1 B to 256 TiB" "$roofsim" collective --bytes 0.4
refused "group of one" "--group: '1' is not a whole number from 2 to 65536" "$roofsim" collective --group 1

# Nonsense that used to run.
refused "tp not dividing heads" "--tp 3 must divide the 32 attention heads" "$roofsim" run --tp 3 --gen 2
refused "context beyond the model" "beyond Llama-3-8B's maximum context of 8192 (--allow-long-context" "$roofsim" run --prompt 100000 --gen 2
refused "near-memory on a chip without" "--near-memory all: " "$roofsim" run --near-memory all --gen 2
refused "topology garbage" "--topology" "$roofsim" run --model llama-2-70b --tp 8 --topology 4x --gen 2
printf '{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 30, "num_hidden_layers": 2, "vocab_size": 32000}\n' > "$tmp/heads.json"
refused "hf heads not dividing hidden" "heads.json:1: num_attention_heads: does not divide hidden_size" "$roofsim" run --model "$tmp/heads.json" --gen 2
printf '{"model_type": "llama", "hidden_size": 1e400}\n' > "$tmp/huge.json"
refused "hf number beyond double" "huge.json:1: hidden_size: a number beyond what a double holds" "$roofsim" run --model "$tmp/huge.json"
python3 -c 'print("[" * 100000 + "]" * 100000)' > "$tmp/deep.json"
refused "hf nested deep" "deep.json:1: nested more than 64 levels deep" "$roofsim" run --model "$tmp/deep.json"
# Hugging Face import of the newer architectures (issue 15): types, lengths, latent attention.
refused "hf unknown hub id" "no config.json shipped for that Hugging Face hub id" "$roofsim" run --model nobody/NoSuchModel-7B
refused "hf unknown hub id in models show" "--model path/to/config.json" "$roofsim" models show nobody/NoSuchModel-7B
printf '{\n  "model_type": "rwkv"\n}\n' > "$tmp/type.json"
refused "hf unsupported type lists the supported" "type.json:2: model_type: unsupported architecture 'rwkv' (supported: deepseek_v2" "$roofsim" models show "$tmp/type.json"
printf '{"model_type": "gpt_oss", "hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 64,\n "vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 2, "sliding_window": 8,\n "layer_types": ["sliding_attention", "full_attention"]}\n' > "$tmp/layers.json"
refused "hf layer_types of the wrong length" "layers.json:3: layer_types: 2 entries for 3 layers" "$roofsim" run --model "$tmp/layers.json"
printf '{"model_type": "deepseek_v3", "hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 2048,\n "vocab_size": 1000, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,\n "qk_head_dim": 256}\n' > "$tmp/mla.json"
refused "hf inconsistent MLA dims" "mla.json:3: qk_head_dim: must be qk_nope_head_dim + qk_rope_head_dim (192)" "$roofsim" run --model "$tmp/mla.json"
printf '{"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32, "intermediate_size": 14336,\n "vocab_size": 32000, "num_local_experts": "8", "num_experts_per_tok": 2}\n' > "$tmp/experts.json"
refused "hf wrong type" "experts.json:2: num_local_experts: expected a positive integer, got \"8\"" "$roofsim" run --model "$tmp/experts.json"

# Errors inside the simulation end as one message and exit 2, not SystemC's E549; plans are
# checked before the run and name the key.
sed '/^\[onchip.l2\]/,/^\[/ s/^capacity_bytes = .*/capacity_bytes = 1024/' "$hw/h100_sxm5.toml" > "$tmp/small_l2.toml"
refused "tile buffer too small" "on-chip buffer (onchip.l2.capacity_bytes of $tmp/small_l2.toml)" "$roofsim" run --hw "$tmp/small_l2.toml" --gen 2
sed 's/^weight_load_cycles = .*/weight_load_cycles = 0/' "$hw/tpu_v4.toml" > "$tmp/tpu_wl0.toml"
if timeout 30 "$roofsim" run --hw "$tmp/tpu_wl0.toml" --prompt 16 --gen 2 >/dev/null 2>"$tmp/err"; then ok; else bad "weight_load_cycles 0 (it hung once): exit $?: $(cat "$tmp/err")"; fi
# Systolic dataflows: a bad value, a dataflow on tensor cores, a contradiction with the older key.
sed 's/^dataflow = .*/dataflow = "diagonal"/' "$hw/tpu_v4.toml" > "$tmp/tpu_df.toml"
refused "bad dataflow" "tpu_df.toml:20: matrix.dataflow" "$roofsim" op --hw "$tmp/tpu_df.toml" --gemm 64,64,64
sed 's/^dataflow = .*/dataflow = "output_stationary"\nweight_stationary = true/' "$hw/tpu_v4.toml" > "$tmp/tpu_ws.toml"
refused "dataflow against weight_stationary" "matrix.weight_stationary: is true, but dataflow is \"output_stationary\"" "$roofsim" op --hw "$tmp/tpu_ws.toml" --gemm 64,64,64
sed 's/^kind = "tensor_core"/kind = "tensor_core"\nweight_load_overlap = false/' "$hw/h100_sxm5.toml" > "$tmp/h100_ov.toml"
refused "overlap on tensor cores" "matrix.weight_load_overlap: is for a systolic array with a dataflow" "$roofsim" op --hw "$tmp/h100_ov.toml" --gemm 64,64,64
for flow in output_stationary input_stationary; do
  sed "s/^dataflow = .*/dataflow = \"$flow\"/; s/^weight_load_overlap = .*/weight_load_overlap = false/" "$hw/tpu_v4.toml" > "$tmp/tpu_$flow.toml"
  if timeout 30 "$roofsim" op --hw "$tmp/tpu_$flow.toml" --gemm 300,700,1000 >/dev/null 2>"$tmp/err"; then ok; else bad "$flow without overlap: exit $?: $(cat "$tmp/err")"; fi
done
refused "trailing x topology" "--topology '4x'" "$roofsim" collective --topology 4x
refused "unwritable output refused before the run" "--json $tmp/nodir/out.json: the folder" "$roofsim" run --json "$tmp/nodir/out.json"
refused "sweep list of counts" "'batch' takes whole numbers" "$roofsim" whatif --sweep batch=1.5 --gen 2
refused "shard with trailing text" "--shard '0/2/3'" "$roofsim" whatif --sweep batch=1,2 --shard 0/2/3
refused "elementwise beyond 2^48" "--elementwise 9223372036854775807: must be between" "$roofsim" roofline --elementwise 9223372036854775807
if timeout 10 "$roofsim" op --gemm 64,64,64 --json /dev/full >/dev/null 2>"$tmp/err"; then bad "write to a full disk exited 0"; elif grep -qF "write failed" "$tmp/err"; then ok; else bad "full disk: $(cat "$tmp/err")"; fi
# Experiment files: the file and line, not a flag that was not given; paths relative to the file.
mkdir -p "$tmp/exp"
cp "$hw/h100_sxm5.toml" "$tmp/exp/my_hw.toml"
printf '[experiment]\nhw = "my_hw.toml"\nmodel = "llama-2-70b"\ngenerate = 2\npp = 81\n' > "$tmp/exp/e.toml"
refused "experiment pp located" "e.toml:5: experiment.pp 81" "$roofsim" run "$tmp/exp/e.toml"
if grep -qF -- "--pp" "$tmp/err"; then bad "experiment error names --pp: $(cat "$tmp/err")"; else ok; fi
printf '[experiment]\nhw = "my_hw.toml"\ngenerate = 2\nbatch = 2\n' > "$tmp/exp/ok.toml"
if (cd / && timeout 60 "$roofsim" run "$tmp/exp/ok.toml" >"$tmp/out" 2>"$tmp/err"); then ok; else bad "relative hw path in experiment: $(cat "$tmp/err")"; fi
refused "flag overrides file, named as flag" "--pp 90" "$roofsim" run "$tmp/exp/e.toml" --pp 90

refused "sweep points bounded" "--points: '100000' is not a whole number from 6 to 1000" "$roofsim" roofline --sweep --points 100000
# Sweep files (docs/sweeps.md): flags of one mode are refused in the other; bad shards, stores, Slurm options.
sweep_file="$here/configs/sweeps/bandwidth-vs-batch.toml"
refused "sweep file flag without a file" "--store is for sweep files" "$roofsim" sweep --store x.db
refused "gemm sweep flag with a file" "--points is for the GEMM sweep" "$roofsim" sweep "$sweep_file" --points 8
refused "sweep shard out of range" "--shard '4/4'" "$roofsim" sweep "$sweep_file" --shard 4/4 --store "$tmp/s.db"
refused "sweep store that is not one" "not a roofsim sweep store" "$roofsim" sweep "$sweep_file" --store "$sweep_file"
refused "sweep jobs zero" "--jobs" "$roofsim" sweep "$sweep_file" -j 0
touch "$tmp/self.db"
refused "sweep store merged into itself" "--merge $tmp/self.db is the store it would merge into" "$roofsim" sweep "$sweep_file" --merge "$tmp/self.db" --store "$tmp/self.db"
refused "slurm flag without --slurm" "--array-size goes with --slurm DIR" "$roofsim" sweep "$sweep_file" --array-size 8
refused "slurm time limit" "--time-limit" "$roofsim" sweep "$sweep_file" --slurm "$tmp/slurm" --time-limit soon
printf '[grid]\nbatch = [1, 0.5]\n' > "$tmp/sweep.toml"
refused "sweep file value located" "sweep.toml:2: grid.batch: batch=0.5: expected a whole number" "$roofsim" sweep "$tmp/sweep.toml"
# roofsim ui refuses what it cannot start, before any server runs.
refused "ui port" "--port: Value 70000" "$roofsim" ui --port 70000
ROOFSIM_PYTHON_DIR="$tmp/none" refused "ui without the module" "the roofsim Python module is not built in $tmp/none" "$roofsim" ui --port 18765
ROOFSIM_PYTHON="$tmp/none/python3" refused "ui without python" "$tmp/none/python3 not found" "$roofsim" ui --port 18765
refused "whatif range beyond 1000 values" "more than 1000 values" "$roofsim" whatif --sweep batch=1:1000000000:x1.0001 --gen 2

# A check that fails is exit 1 with the command's own words, not a refusal (2).
timeout 60 "$roofsim" cases run TTFT-H100-TRT090-GPT-J6B-tp1-128 --tolerance 1e-9 >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && ! grep -q "Runtime error" "$tmp/err"; then ok; else bad "cases run beyond its tolerance: exit $rc: $(cat "$tmp/err")"; fi

# serve: bad workloads and settings
refused "serve: prompt beyond budget" "exceeds the --max-tokens budget" "$roofsim" serve --prompt 5000 --output 10 --requests 2 --max-tokens 4096
refused "serve: KV cannot hold a request" "KV blocks" "$roofsim" serve --prompt 1000 --output 10 --requests 2 --kv-blocks 3
refused "serve: junk length" "--prompt" "$roofsim" serve --prompt normal:abc
refused "serve: two arrival modes" "give one of" "$roofsim" serve --rate 2 --concurrency 4
refused "serve: iteration beyond the chip model" "--max-tokens 16777216: an iteration of that many tokens" "$roofsim" serve --max-tokens 16777216 --requests 2
refused "serve: beyond context" "maximum context" "$roofsim" serve --prompt 8000 --output 500 --requests 2 --max-tokens 16384
refused "serve: arrivals beyond the clock" "--rate 1e-300: the last of the 3 requests arrives at" "$roofsim" serve --rate 1e-300 --requests 3
refused "serve: burst interval beyond the clock" "--burst-interval-ms 1e+12:" "$roofsim" serve --burst 2 --burst-interval-ms 1e12 --requests 3
refused "serve: nan rate" "--rate" "$roofsim" serve --rate nan
refused "serve: draft with another vocabulary" "share the target's tokenizer" "$roofsim" serve --speculative-tokens 2 --draft llama-2-7b
refused "serve: acceptance without drafts" "--speculative-tokens" "$roofsim" serve --acceptance 0.5
refused "serve: acceptance per position, too few" "one per drafted token" "$roofsim" serve --speculative-tokens 3 --acceptance 0.5,0.4
refused "serve: acceptance above 1" "--acceptance: '1.5' is not a number from 0 to 1" "$roofsim" serve --speculative-tokens 2 --acceptance 1.5
refused "serve: prefill tp without disaggregation" "give --disaggregate too" "$roofsim" serve --prefill-tp 2
refused "serve: disaggregated static batches" "batch continuously" "$roofsim" serve --disaggregate --scheduler static
refused "serve: plot of a disaggregated run" "use --trace" "$roofsim" serve --disaggregate --plot "$tmp/x.png"
printf 'arrival_s,prompt_tokens,output_tokens\n0,100,10\n0.5,8000,500\n' > "$tmp/long.csv"
refused "serve: trace request beyond the context, by file and line" "long.csv:3: request 1" "$roofsim" serve --requests-from "$tmp/long.csv"
printf 'arrival_s,prompt_tokens,output_tokens\n0,100,10\n0.5,3000,500\n' > "$tmp/big.csv"
# Endless input is refused at its first line, not read until memory runs out (issue 54).
refused "serve: a trace that never ends" "/dev/zero:1: a NUL byte" "$roofsim" serve --requests-from /dev/zero
refused "validate: cases that never end" "/dev/zero:1: a NUL byte" "$roofsim" validate --cases /dev/zero
head -c 2000000 /dev/zero | tr '\0' 'a' >"$tmp/oneline.csv"
refused "sweep: a device as the sweep file (no store made beside it)" "/dev/zero: not a regular file" "$roofsim" sweep /dev/zero
refused "run: a device as the hardware file" "/dev/zero: not a regular file" "$roofsim" run --hw /dev/zero
refused "serve: a line of 2 MB" "oneline.csv:1: a line longer than 1 MiB" "$roofsim" serve --requests-from "$tmp/oneline.csv"
refused "serve: trace request the cache cannot hold, by file and line" "big.csv:3: request 1 (3000 prompt + 500 output tokens): needs 110 KV blocks" "$roofsim" serve --requests-from "$tmp/big.csv" --kv-blocks 50
refused "serve: two outputs to standard output" "--json already writes to standard output" "$roofsim" serve --json - --requests-csv -
refused "serve: prefill tp the model cannot split, named as such" "--prefill-tp 3 must divide" "$roofsim" serve --disaggregate --prefill-tp 3
refused "serve: host time per sequence, in its flag's unit" "--sequence-overhead-us must be in [0, 10000) us" "$roofsim" serve --sequence-overhead-us 20000
refused "serve: unknown draft" "--draft 'nosuch'" "$roofsim" serve --speculative-tokens 2 --draft nosuch
# serve: chart and trace names are checked before the run, not after it
refused "serve: plot in a missing folder" "--plot /nonexistent-dir/x.png: the folder" "$roofsim" serve --plot /nonexistent-dir/x.png
refused "serve: plot extension" "--plot $tmp/x.gif: expected a .png or .svg" "$roofsim" serve --plot "$tmp/x.gif"
refused "serve: trace in a missing folder" "--trace /nonexistent-dir/t.json: the folder" "$roofsim" serve --trace /nonexistent-dir/t.json
# search: settings refused before any run
refused "search: no GPUs" "--gpus: '0' is not a whole number from 1 to 4096" "$roofsim" search --gpus 0
refused "search: tp fitting no layout" "--tp 3: no layout of --gpus 8 has tensor-parallel groups of 3" "$roofsim" search --tp 3 --gpus 8
refused "search: tp list junk" "--tp 1,x: 'x' is not a whole number from 1 to 8" "$roofsim" search --tp 1,x
refused "search: empty tp list" "--tp: empty: give a list such as 1,2,4,8" "$roofsim" search --tp ''
refused "search: empty concurrency list" "--concurrency: empty" "$roofsim" search --concurrency ''
refused "search: plot extension" "--plot $tmp/x.gif: expected a .png or .svg" "$roofsim" search --plot "$tmp/x.gif"

sed 's/^hidden_size = 4096/hidden_size = 40960/' "$here/configs/models/llama-3-8b.toml" > "$tmp/big_model.toml"
refused "a model file that does not fit is named" "Llama-3-8B (--model $tmp/big_model.toml) does not fit" "$roofsim" run --model "$tmp/big_model.toml" --gen 2

# CSV tables: a column twice or a NUL byte is no table.
mkdir -p "$tmp/kd"
printf 'm,n,k,k,latency_us\n1,2,3,4,5\n' > "$tmp/kd/gemm.csv"
refused "csv duplicate column" "gemm.csv:1: column 'k' appears twice" "$roofsim" validate --kernels "$tmp/kd"
printf 'm,n,k,gemm_dtype,latency\n1,9223372036854775807,8,bfloat16,0.01\n' > "$tmp/kd/gemm.csv"
refused "kernel row beyond 2^48, located" "gemm.csv:2: m, n, k:" "$roofsim" validate --kernels "$tmp/kd"
printf 'm,n,k,gemm_dtype,latency\n28888888,1,102462505198600655,fp8,0.01\n' > "$tmp/kd/gemm.csv"
refused "kernel fp8 row overflowing m x k (fuzzer finding)" "gemm.csv:2: m, n, k: GEMM batch=1" "$roofsim" validate --kernels "$tmp/kd"
printf 'm,n,k,latency_us\n1,2\0003,4\n' > "$tmp/kd/gemm.csv"
refused "csv NUL byte" "gemm.csv:2: a NUL byte" "$roofsim" validate --kernels "$tmp/kd"

# Work guard: refused before the run with the estimate and the flag that raises the limit.
refused "work guard" "raise --max-events" "$roofsim" run --gen 4000 --decode-stride 1 --max-events 1e6
# A request size of one byte makes every byte an event: counted, so refused up front (it ran
# 86 s for one 4096^3 GEMM, minutes for larger ones, under an estimate that left requests out).
sed 's/^request_bytes = .*/request_bytes = 1/' "$hw/h100_sxm5.toml" > "$tmp/byte_requests.toml"
refused "work guard counts memory requests" "of them memory requests of dma.request_bytes = 1 B" "$roofsim" op --hw "$tmp/byte_requests.toml" --gemm 16384,16384,16384
refused "memory guard" "of results in memory (1000000 simulated steps)" "$roofsim" run --gen 1000000 --decode-stride 1 --allow-long-context --kv-dtype fp8 --weights-dtype int4

# Scale-out: bad [network] keys at their line, --nodes and --replicas that do not fill the nodes.
refused "network shape" 'network.shape: expected one of "rail", "fat_tree", got "torus"' \
  "$roofsim" collective --hw "$(hw_with network.shape '"torus"')" --topology nodes:2x8 --bytes 1MiB
refused "network bandwidth located" "hw.toml:$(line_of network.nic_bandwidth_gb_per_s): network.nic_bandwidth_gb_per_s: expected a positive number" \
  "$roofsim" collective --hw "$(hw_with network.nic_bandwidth_gb_per_s -50)" --topology nodes:2x8 --bytes 1MiB
refused "network oversubscription on a rail" "network.oversubscription: is for shape" \
  "$roofsim" collective --hw "$(sed 's/^shape = "rail"/shape = "rail"\noversubscription = 2/' "$hw/h100_sxm5.toml" > "$tmp/os.toml"; echo "$tmp/os.toml")" --topology nodes:2x8 --bytes 1MiB
refused "network unknown key" "network.nic_count: unknown key" \
  "$roofsim" collective --hw "$(sed 's/^nics_per_chip = 1/nic_count = 1/' "$hw/h100_sxm5.toml" > "$tmp/nk.toml"; echo "$tmp/nk.toml")" --topology nodes:2x8 --bytes 1MiB
refused "nodes without a network" "--nodes 2: tpu_v4 has no [network] section" "$roofsim" run --hw tpu_v4 --model llama-2-7b --tp 8 --nodes 2
refused "nodes not filled" "--nodes 3 of 8 chips (network.chips_per_node of h100_sxm5) hold 24 chips" "$roofsim" run --model llama-2-70b --tp 8 --pp 2 --nodes 3
refused "replicas not filling nodes" "--replicas 3 x --tp 8" "$roofsim" run --model llama-3-8b --tp 8 --replicas 3 --nodes 2
refused "nodes zero" "--nodes: '0' is not a whole number" "$roofsim" run --nodes 0
refused "nodes topology mismatch" "--nodes 2 puts each replica on nodes:2x8" "$roofsim" run --model llama-2-70b --tp 8 --pp 2 --nodes 2 --topology switch:16
refused "nodes topology malformed" "expected nodes:NxL" "$roofsim" collective --topology nodes:2y8 --bytes 1MiB
refused "one node is a switch" "one node is switch:8" "$roofsim" collective --topology nodes:1x8 --bytes 1MiB
refused "node larger than the hardware's" "network.chips_per_node = 8" "$roofsim" collective --topology nodes:2x16 --bytes 1MiB

# Second campaign (2026-11-24): refusals that named no place, named the wrong flag, or were not refusals.
# Command lines CLI11 reported confusingly.
refused "unknown subcommand" "'bogus-subcommand': unknown SUBCOMMAND (one of hw, models" "$roofsim" bogus-subcommand
refused "no subcommand" "give a SUBCOMMAND: one of hw, models" "$roofsim"
refused "long option with one dash" "-prompt: a long option takes two dashes (--prompt)" "$roofsim" run -prompt 16
# Model files: labels that say nothing.
sed 's|^hub_id = .*|hub_id = "garbage"|' "$here/configs/models/llama-3-8b.toml" > "$tmp/hub.toml"
refused "model hub_id not OWNER/NAME" "hub.toml:" "$roofsim" run --model "$tmp/hub.toml" --gen 2
grep -qF "hub_id: expected a Hugging Face repository id, OWNER/NAME, got 'garbage'" "$tmp/err" && ok || bad "hub_id message: $(cat "$tmp/err")"
sed 's|^architecture = .*|architecture = ""|' "$here/configs/models/llama-3-8b.toml" > "$tmp/arch.toml"
refused "model architecture empty" "architecture: empty (leave the key out when unsaid)" "$roofsim" run --model "$tmp/arch.toml" --gen 2
# A model that does not fit names the settings that decide it.
refused "does not fit names the batch" "try fewer sequences than --batch 100000, a shorter context than --prompt 16 + --gen 2" \
  "$roofsim" run --prompt 16 --gen 2 --batch 100000
refused "does not fit names the model" "PaLM-540B (--model palm-540b) does not fit" "$roofsim" run --model palm-540b --gen 2
printf '[model]\nname = "t"\nhidden_size = 64\nlayers = 1\nattention_heads = 1\nintermediate_size = 64\nvocab_size = 100\nmlp = "plain"\n' > "$tmp/tiny.toml"
refused "ep on a model file without experts names the file" "--ep 2: t has no experts (--model $tmp/tiny.toml)" "$roofsim" run --model "$tmp/tiny.toml" --ep 2 --batch 2 --gen 2
printf '{\n  "hidden_size": 4096\n}\n' > "$tmp/notype.json"
refused "hf missing model_type at the object's line" "notype.json:1: model_type: missing" "$roofsim" run --model "$tmp/notype.json"
# Experiment files: what a named file holds, and settings the file gave, at the file's line.
printf '[experiment]\nhw = "/dev/null"\ngenerate = 2\n' > "$tmp/exp/hwnull.toml"
refused "experiment hw file broken, at the experiment's line" "hwnull.toml:2: experiment.hw /dev/null: /dev/null: not a regular file" "$roofsim" run "$tmp/exp/hwnull.toml"
printf '[experiment]\nmodel = "palm-540b"\ngenerate = 2\n' > "$tmp/exp/big.toml"
refused "experiment model that does not fit, at the file" "big.toml:3: PaLM-540B (experiment.model palm-540b) does not fit" "$roofsim" run "$tmp/exp/big.toml"
printf '[experiment]\nnear_memory = "all"\ngenerate = 2\n' > "$tmp/exp/nm.toml"
refused "experiment near_memory at its line, not as a flag" "nm.toml:2: experiment.near_memory all: h100_sxm5 has no near-memory" "$roofsim" run "$tmp/exp/nm.toml"
printf '[experiment]\ngenerate = 2\nrouting = "zipf"\n' > "$tmp/exp/routing.toml"
refused "experiment routing form at its line" "routing.toml:3" "$roofsim" run "$tmp/exp/routing.toml"
printf '[experiment]\ngenerate = 2\nrouting = "balanced"\n' > "$tmp/exp/routing_dense.toml"
refused "experiment routing on a dense model at its line" "routing_dense.toml:3: experiment.routing balanced: Llama-3-8B has no experts to route to" "$roofsim" run "$tmp/exp/routing_dense.toml"
refused "routing flag form" "--routing: 'power_law:0' is not uniform, balanced or power_law:A" "$roofsim" run --routing power_law:0
# whatif: variants are named by the flag that made them.
refused "whatif --with an unknown setting" "--with bogus=1: 'bogus=1' is not SETTING=VALUE" "$roofsim" whatif --gen 2 --with bogus=1
refused "whatif --with a bad value" "--with fuse: 'all' is not none, elementwise or a list of add_norm, activation, rope" "$roofsim" whatif --gen 2 --with fuse=all
refused "whatif --with another chip" "variant 'hw=a100_sxm4_80gb': hw: a variant runs the base's hw" "$roofsim" whatif --gen 2 --with hw=a100_sxm4_80gb
refused "whatif scale breaking the file names --scale" "--scale compute=1e308: " "$roofsim" whatif --gen 2 --scale compute=1e308
refused "whatif variant preset named as --variant" "--variant 'bogus': unknown hardware preset" "$roofsim" whatif --gen 2 --variant bogus
refused "whatif variant that does not fit is named" "variant 'hbm.capacity_bytes = 1': Llama-3-8B" "$roofsim" whatif --gen 2 --set hbm.capacity_bytes=1
printf '{"schema_version":1,"sweep":"batch","axes":["batch"],"grid_points":1,"shard":"0/1","points":[{"index":99999999999,"value":1,"values":[1],"batch":1,"ttft_s":1,"tpot_s":1,"throughput_tok_s":1,"decode_tok_s":1,"decode_intensity":1,"prefill_intensity":1,"decode_compute_share":0,"bound_tpot_s":1}]}\n' > "$tmp/shard.json"
refused "whatif merge point outside the grid names the file" "--merge $tmp/shard.json: a shard's point 99999999999" "$roofsim" whatif --merge "$tmp/shard.json"
refused "whatif merge of a non-file names --merge" "--merge /dev/zero: not a whatif sweep JSON" "$roofsim" whatif --merge /dev/zero
# op and collective: the flag behind a refusal.
refused "op beyond HBM names --gemm" "--gemm 2147483648,4096,4096: gemm 2147483648,4096,4096 bf16: its tensors take" "$roofsim" op --gemm 2147483648,4096,4096
refused "collective work guard names --topology" "simulation events on --topology 65536" "$roofsim" collective --topology 65536 --bytes 1MiB
refused "nvls dtype names --dtype" "not --dtype fp8" "$roofsim" collective --bytes 1MiB --algo nccl_nvls --dtype fp8
awk '/^\[links\]/ { skip = 1; next } /^\[/ { skip = 0 } !skip' "$hw/tpu_v4.toml" | grep -v '^"links\.' > "$tmp/nolinks.toml"
refused "hardware without links, located" "nolinks.toml:1: links: missing table [links]" "$roofsim" collective --hw "$tmp/nolinks.toml" --topology 4x4 --bytes 1MiB
# validate --cases: rows refused at their line, not as flags; a reference of 0 or -5 is no measurement.
cases_row() { printf 'id,hw,model,batch,prompt,generate,weights,activations,kv,launch,attention,metric,reference,unit\n%s\n' "$1" > "$tmp/cases.csv"; }
cases_row "U1,h100_sxm5,llama-3-8b,1,16,2,bf16,bf16,bf16,graph,fused,ttft,0,ms"
refused "user case reference zero" "cases.csv:2: reference: '0' is not a positive number" "$roofsim" validate --quick --cases "$tmp/cases.csv" --report "$tmp/rep.md"
cases_row "U1,h100_sxm5,llama-3-8b,1,16,2,bf16,bf16,bf16,graph,fused,ttft,-5,ms"
refused "user case reference negative" "cases.csv:2: reference: '-5' is negative" "$roofsim" validate --quick --cases "$tmp/cases.csv" --report "$tmp/rep.md"
cases_row "U1,h100_sxm5,llama-3-8b,9223372036854775807,16,2,bf16,bf16,bf16,graph,fused,ttft,6.5,ms"
refused "user case batch beyond the limit at its row" "cases.csv:2: batch: 9223372036854775807 is more than 1048576" "$roofsim" validate --quick --cases "$tmp/cases.csv" --report "$tmp/rep.md"
cases_row "U1,bogus,llama-3-8b,1,16,2,bf16,bf16,bf16,graph,fused,ttft,6.5,ms"
refused "user case unknown hardware at its row" "cases.csv:2: hw 'bogus': unknown hardware preset" "$roofsim" validate --quick --cases "$tmp/cases.csv" --report "$tmp/rep.md"
printf 'id,hw,model,batch,prompt,generate,weights,activations,kv,launch,attention,metric,reference,unit\n' > "$tmp/cases.csv"
refused "user cases header only" "cases.csv:1: no cases" "$roofsim" validate --quick --cases "$tmp/cases.csv" --report "$tmp/rep.md"
# A failed check (exit 1) says why, by file line or flag.
mkdir -p "$tmp/kl"
head -3 "$here/validation/kernels/h100/gemm.csv" > "$tmp/kl/gemm.csv"
printf 'family,max_mape_percent\nbogus,10\n' > "$tmp/limits.csv"
timeout 60 "$roofsim" validate --kernels "$tmp/kl" --report "$tmp/rep.md" --limits "$tmp/limits.csv" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && grep -qF "limits.csv:2: bogus: not simulated" "$tmp/err"; then ok; else bad "limits family not simulated: exit $rc: $(cat "$tmp/err")"; fi
timeout 60 "$roofsim" cases run TTFT-H100-TRT090-GPT-J6B-tp1-128 --tolerance 1e-300 >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && grep -qF "beyond --tolerance 1e-300" "$tmp/err"; then ok; else bad "cases run beyond a tiny tolerance: exit $rc: $(cat "$tmp/err")"; fi

# Numbers in messages are readable: 1e308 was printed with 309 digits.
refused "huge tolerance readable" "--tolerance 1e+308: at most 10" "$roofsim" cases run TTFT-H100-TRT090-GPT-J6B-tp1-128 --tolerance 1e308
printf 'm,n,k,gemm_dtype,latency\n64,64,64,bfloat16,1e308\n' > "$tmp/kd/gemm.csv"
refused "huge kernel latency readable" "gemm.csv:2: latency: 1e+308 ms is beyond any kernel" "$roofsim" validate --kernels "$tmp/kd"
# Names longer than a file name (fuzz_user_cases): refused as names that find nothing, not internal errors.
long=$(printf 'a%.0s' $(seq 300))
refused "hw name too long" "--hw '$long': unknown hardware preset" "$roofsim" run --hw "$long" --gen 2
refused "model path too long" "--model $long/x.toml: File name too long" "$roofsim" run --model "$long/x.toml" --gen 2
refused "kernels folder too long" "--kernels $long: not a folder" "$roofsim" validate --kernels "$long"
refused "plot name too long, before the work" "--plot $long.png: a name in it is longer than 255 bytes" "$roofsim" roofline --sweep --points 8 --plot "$long.png"
refused "--from not JSON" "--from /dev/null: not JSON" "$roofsim" run --from /dev/null
echo '{"kind": "serving", "settings": {}}' > "$tmp/serving_result.json"
refused "--from a serving result to run" "the settings of a serving run (roofsim serve --from)" "$roofsim" run --from "$tmp/serving_result.json"
echo '{"settings": {"batch": 0}}' > "$tmp/bad_result.json"
refused "--from a bad setting" "--from $tmp/bad_result.json: batch=0: expected a whole number from 1 to 1048576" "$roofsim" run --from "$tmp/bad_result.json"
echo '{"kind": "serving", "settings": {"concurency": 8}}' > "$tmp/typo_result.json"
refused "serve --from an unknown setting" "--from $tmp/typo_result.json: unknown setting 'concurency'" "$roofsim" serve --from "$tmp/typo_result.json"
refused "--from and a file" "excludes" "$roofsim" run --from "$tmp/bad_result.json" "$(dirname "$0")/../configs/experiments/default.toml"
echo "refusals: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
