"""The Python module end to end: results as plain data, edits before a run, many runs per process."""
import roofsim
import pytest


def test_run_returns_the_run_schema():
    r = roofsim.run(model="llama-3-8b", batch=8, prompt=128, gen=4)
    assert r["schema_version"] == roofsim.schema_version
    assert r["batch"] == 8 and r["model"] == "Llama-3-8B"
    assert r["tpot_s"] >= r["bound_tpot_s"] > 0
    assert r["ttft_s"] >= r["bound_ttft_s"] > 0
    assert isinstance(r["ops"], list) and {"name", "phase", "sim_time_s"} <= set(r["ops"][0])


def test_runs_in_one_process_are_identical():
    a = roofsim.run(batch=2, prompt=64, gen=3)
    roofsim.collective(hw="tpu_v4", topology="4x4", bytes=1 << 24)
    b = roofsim.run(batch=2, prompt=64, gen=3)
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b


def test_op_matches_its_bound_shape():
    r = roofsim.op(gemm=(1, 4096, 4096))
    assert r["roof"] == "memory"
    assert r["sim_time_s"] >= r["bound_time_s"]
    assert roofsim.op(gemm=(8192, 8192, 8192), hw="tpu_v4")["roof"] == "compute"


def test_more_bandwidth_speeds_up_batch_1_decode():
    base = roofsim.run(prompt=128, gen=4)
    hw = roofsim.hardware("h100_sxm5")
    hw.scale("hbm.bandwidth", 2)
    assert hw["hbm.bandwidth_gb_per_s"] == pytest.approx(2 * 3350)
    faster = roofsim.run(hw=hw, prompt=128, gen=4)
    assert base["tpot_s"] / faster["tpot_s"] > 1.6


def test_edited_model_and_bad_edits():
    m = roofsim.model("llama-3-8b")
    m.layers = 16
    half = roofsim.run(model=m, prompt=128, gen=4)
    full = roofsim.run(prompt=128, gen=4)
    assert half["memory_bytes"]["weights"] < full["memory_bytes"]["weights"]
    m.kv_heads = 5
    with pytest.raises(ValueError, match="kv_heads"):
        roofsim.run(model=m)
    hw = roofsim.hardware("h100_sxm5")
    with pytest.raises(ValueError, match="no number at 'hbm.nope'"):
        hw["hbm.nope"] = 1
    hw["hbm.efficiency"] = 2.0
    with pytest.raises(ValueError, match="hbm.efficiency"):
        roofsim.run(hw=hw)
    with pytest.raises(ValueError, match="unknown argument 'bacth'"):
        roofsim.run(bacth=2)
    with pytest.raises(ValueError, match="batch=0: expected a whole number from 1 to 1048576"):
        roofsim.run(batch=0)


def test_sweep_grid_records_suit_a_dataframe():
    seen = []
    points = roofsim.sweep({"batch": [1, 4], "hbm.bandwidth_gb_per_s": [3350, 6700]}, prompt=64, gen=3,
                           progress=lambda done, total, what: seen.append((done, total)))
    assert len(points) == 4 and seen[-1] == (4, 4)
    assert [p["batch"] for p in points] == [1, 1, 4, 4]
    keys = set(points[0])
    assert all(set(p) == keys for p in points)  # the same columns in every record
    by = {(p["batch"], p["hbm.bandwidth_gb_per_s"]): p for p in points}
    assert by[(1, 6700)]["tpot_s"] < by[(1, 3350)]["tpot_s"]


def test_sweep_point_that_does_not_fit_is_reported_not_raised():
    points = roofsim.sweep({"batch": [1, 4096]}, model="llama-2-13b", prompt=4000, gen=2)
    assert "error" not in points[0]
    assert "does not fit" in points[1]["error"]


def test_whatif_and_collective_and_case():
    w = roofsim.whatif({"2x bandwidth": "h100_2xbw"}, prompt=64, gen=4)
    assert w["variants"][0]["decode_speedup"] > 1.6
    c = roofsim.collective(hw="h100_sxm5", topology="switch:8", bytes=1 << 30)
    assert c["sim_time_s"] >= c["bound_time_s"] > 0
    # A software variant: run settings on the base chip.
    f = roofsim.whatif({"fused": {"fuse": "elementwise"}}, prompt=64, gen=4)
    assert f["variants"][0]["name"] == "fused"
    assert f["variants"][0]["decode_speedup"] > 1.02
    assert roofsim.run(prompt=64, gen=2, fuse="elementwise")["settings"]["fuse"] == "elementwise"
    case = roofsim.case("TTFT-H100-TRT090-GPT-J6B-tp1-128")
    assert abs(case["error"]) < 0.15
    assert "h100_sxm5" in roofsim.presets("hardware")


def test_errors_name_settings_as_python_keywords():
    with pytest.raises(ValueError, match=r"^ep 3 must divide the 8 experts"):
        roofsim.run(model="mixtral-8x7b", ep=3, batch=3, gen=2)
    with pytest.raises(ValueError, match=r"^topology switch:4 has 4 chips; tp 8"):
        roofsim.run(model="llama-2-70b", tp=8, topology="switch:4", gen=2)


def test_sweep_values_are_checked_before_anything_runs():
    with pytest.raises(ValueError, match="whole numbers from 1 to 1e9"):
        roofsim.sweep({"batch": [1, -4]})
    with pytest.raises(ValueError, match="whole numbers"):
        roofsim.sweep({"batch": [2.5]})
    with pytest.raises(ValueError, match="not a finite number"):
        roofsim.sweep({"hbm.bandwidth_gb_per_s": [float("nan")]})
    with pytest.raises(ValueError, match="no number at 'hbm.nope'"):
        roofsim.sweep({"hbm.nope": [1]})


def test_an_exception_in_the_progress_callback_stops_the_sweep():
    seen = []

    def stop(done, total, what):
        seen.append(done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        roofsim.sweep({"batch": [1, 2, 4]}, prompt=64, gen=2, progress=stop)
    assert seen == [1]
    assert roofsim.run(prompt=64, gen=2)["ttft_s"] > 0  # the module works on afterwards


def test_arguments_of_the_wrong_type_are_named():
    with pytest.raises(ValueError, match=r"batch=10{30}: expected an integer"):
        roofsim.run(batch=10**30)
    with pytest.raises(ValueError, match=r"attention=3: expected fused, trtllm, unfused or vector"):
        roofsim.run(attention=3)


def test_serve_returns_the_serving_schema_and_its_rows():
    default = roofsim.serve(requests=10)  # the default workload, as `roofsim serve` runs it
    assert default["workload"]["arrivals"] == "poisson" and default["workload"]["rate_per_s"] == 20
    r = roofsim.serve(concurrency=4, requests=12, prompt=256, output="uniform:8:24", seed=3)
    assert r["kind"] == "serving"
    assert r["summary"]["requests"] == 12
    assert r["summary"]["tpot_s"]["mean"] > 0 and r["summary"]["ttft_s"]["mean"] > 0
    assert len(r["requests"]) == 12
    assert {"id", "arrival_s", "first_token_s", "finish_s", "ttft_s", "tpot_s"} <= set(r["requests"][0])
    assert len(r["iteration_records"]) == r["iterations"]
    assert sum(i["decode_tokens"] for i in r["iteration_records"]) + 12 == sum(q["output_tokens"] for q in r["requests"])
    again = roofsim.serve(concurrency=4, requests=12, prompt=256, output="uniform:8:24", seed=3)
    assert again["requests"] == r["requests"]


def test_serve_speculation_and_disaggregation_and_its_errors():
    spec = roofsim.serve(concurrency=4, requests=8, prompt=128, output=32, speculative_tokens=2, acceptance=[0.8, 0.5])
    assert spec["summary"]["tokens_per_step"] > 1.5
    dis = roofsim.serve(concurrency=4, requests=8, prompt=128, output=16, disaggregate=True, decode_tp=2)
    assert dis["disaggregation"]["kv_transfer_bytes"] > 0 and dis["chips"] == 3
    with pytest.raises(roofsim.InputError, match="is a run setting; a serving run takes prompt, output"):
        roofsim.serve(batch=4)
    with pytest.raises(roofsim.InputError, match="unknown argument 'bogus'"):
        roofsim.serve(bogus=1)
    # The serving cases' scheduler settings: one prompt started per iteration, late release.
    cases_like = roofsim.serve(concurrency=4, requests=8, prompt=128, output=8, max_prompts=1, late_release=True)
    assert cases_like["late_release"] is True and "at most 1 prompt started per iteration" in cases_like["scheduler"]
    with pytest.raises(roofsim.InputError, match="max_prompts=-1: expected a whole number from 0 to"):
        roofsim.serve(max_prompts=-1)


def test_serve_takes_a_stack_with_its_serving_table_unless_a_keyword_says_otherwise():
    vllm = roofsim.serve(concurrency=4, requests=8, prompt=128, output=8, stack="vllm")
    assert vllm["iteration_overhead_s"] == pytest.approx(1e-3)  # vllm.toml [serving]
    assert "chunked prefill" in vllm["scheduler"] and vllm["kv_cache"]["admission"] == "on_demand"
    own = roofsim.serve(concurrency=4, requests=8, prompt=128, output=8, stack="vllm", iteration_overhead_ms=0)
    assert own["iteration_overhead_s"] == 0
    plain = roofsim.serve(concurrency=4, requests=8, prompt=128, output=8)
    assert plain["iteration_overhead_s"] == 0 and plain["kv_cache"]["admission"] == "reserve"
    with pytest.raises(roofsim.InputError, match="nosuch"):
        roofsim.serve(stack="nosuch")
    # A release of a stack: vLLM's async scheduling (batches formed a step ahead) from 0.14 on.
    assert vllm["schedule_ahead"] is True
    assert roofsim.serve(concurrency=4, requests=8, prompt=128, output=8, stack="vllm@0.12.0")["schedule_ahead"] is False
    with pytest.raises(roofsim.InputError, match="not a version"):
        roofsim.serve(stack="vllm@latest")
    # An attention kernel given by keyword stays, as --attention overrides --stack.
    small = dict(concurrency=2, requests=4, prompt=64, output=4)
    assert (roofsim.serve(stack="sglang", attention="unfused", **small)["summary"]["tpot_s"]["mean"]
            != roofsim.serve(stack="sglang", **small)["summary"]["tpot_s"]["mean"])


def test_serve_refuses_counts_beyond_what_the_cli_takes():
    with pytest.raises(roofsim.InputError, match="concurrency=1099511627776: expected a whole number from 1 to 1048576"):
        roofsim.serve(concurrency=2**40)
    with pytest.raises(roofsim.InputError, match="requests=0"):
        roofsim.serve(requests=0)


def test_op_and_roofline_sweep_refuse_bad_sizes_as_input_errors():
    # Sizes that are not whole numbers are the caller's error (InputError), not pybind11's RuntimeError.
    for gemm in ("abc", (1.5, 2, 3), (float("nan"), 2, 3)):
        with pytest.raises(roofsim.InputError, match="gemm=.*expected \\(M, N, K\\) or \\(B, M, N, K\\) of whole numbers"):
            roofsim.op(gemm=gemm)
    with pytest.raises(roofsim.InputError, match="reduce=.*of whole numbers"):
        roofsim.op(reduce=("a", 2))
    # The CLI's range: a billion points ran for minutes.
    with pytest.raises(roofsim.InputError, match="points must be between 6 and 1000"):
        roofsim.roofline_sweep(points=10**9)


def test_sweep_file_runs_once_and_reads_back_for_pandas(tmp_path):
    sweep = tmp_path / "bw.toml"
    sweep.write_text('[base]\nprompt = 64\ngen = 3\n[grid]\nbatch = [1, 4]\n"hbm.bandwidth_gb_per_s" = [2000, 4000]\n')
    seen = []
    rows = roofsim.sweep_file(str(sweep), jobs=2, progress=lambda done, total, what: seen.append(total))
    assert [r["index"] for r in rows] == [0, 1, 2, 3]
    assert seen and seen[0] == 4
    assert rows[1]["hbm.bandwidth_gb_per_s"] == 4000 and rows[1]["tpot_s"] < rows[0]["tpot_s"]
    assert (tmp_path / "bw.db").exists()
    again = roofsim.sweep_file(str(sweep), progress=lambda *a: pytest.fail("nothing is left to run"))
    strip = lambda rs: [{k: v for k, v in r.items() if k != "wall_s"} for r in rs]
    assert strip(again) == strip(rows) == strip(roofsim.read_sweep(str(sweep)))
    with pytest.raises(ValueError, match=r"shard='1/1'"):
        roofsim.sweep_file(str(sweep), shard="1/1")


@pytest.mark.parametrize("settings", [dict(model="llama-3-8b", batch=4, prompt=96, gen=5),
                                      dict(model="llama-2-70b", tp=8, prompt=64, gen=3),
                                      dict(model="mixtral-8x7b", ep=4, tp=2, batch=8, prompt=32, gen=2),
                                      dict(model="llama-2-7b", hw="tpu_v4", tp=4, pp=2, topology="4x2", prompt=32, gen=2)])
def test_analyze_gives_the_runs_bounds_without_simulating(settings):
    a = roofsim.analyze(**settings)
    r = roofsim.run(**settings)
    assert a["schema_version"] == roofsim.schema_version
    # The phase bounds are the run's, collectives included: the same code builds the graphs,
    # steps and bounds; analyze only skips the simulation.
    for key in ("bound_ttft_s", "bound_tpot_s", "bound_total_s", "decode_speed_of_light_s",
                "prefill_intensity", "decode_intensity"):
        assert a[key] == r[key], key
    if settings.get("tp", 1) > 1:
        return  # the rest is checked on one chip
    assert a["memory_bytes"] == r["memory_bytes"] and a["fits"]
    assert [(o["phase"], o["name"], o["roof"]) for o in a["ops"]] == [(o["phase"], o["name"], o["roof"]) for o in r["ops"]]
    for ao, ro in zip(a["ops"], r["ops"]):
        assert ao["bound_time_s"] == pytest.approx(ro["bound_time_s"], rel=1e-9)
        assert ao["count"] == pytest.approx(ro["count"])
    h100 = roofsim.hardware("h100_sxm5").summary()
    assert a["ridge"] == pytest.approx(h100["ridge"]["bf16"])
    assert a["bound_decode_tok_s"] == pytest.approx(4 / a["bound_tpot_s"])
    assert a["ops"] == [{k: o[k] for k in a["ops"][0]} for o in r["ops"]]  # op bounds and roofs, exactly


def test_analyze_refuses_what_run_refuses_and_reports_a_model_that_does_not_fit():
    with pytest.raises(roofsim.InputError, match="tp"):
        roofsim.analyze(model="llama-3-8b", tp=3)
    with pytest.raises(roofsim.InputError, match="batch"):
        roofsim.analyze(batch=0)
    with pytest.raises(roofsim.InputError, match="unknown argument"):
        roofsim.analyze(bacth=4)
    for bad in (dict(activations_dtype="int8"), dict(hw="tpu_v4", activations_dtype="fp8"), dict(tp=2, topology="switch:4")):
        with pytest.raises(roofsim.InputError) as analyzed:
            roofsim.analyze(**bad)
        with pytest.raises(roofsim.InputError) as ran:
            roofsim.run(prompt=16, gen=2, **bad)
        assert str(analyzed.value) == str(ran.value)
    big = roofsim.analyze(model="llama-2-70b", batch=64)
    assert not big["fits"] and big["memory_bytes"]["total"] > big["memory_bytes"]["capacity"]
    multi = roofsim.analyze(model="llama-2-70b", tp=8, prompt=64, gen=2)
    assert multi["topology"] == "switch:8" and multi["fits"]


def test_run_reports_progress():
    seen = []
    roofsim.run(prompt=64, gen=4, progress=lambda done, total, what: seen.append((done, total, what)))
    assert seen and seen[-1][0] == seen[-1][1] == 4 and seen[0][2] == "prefill"


def test_serve_reports_progress_as_requests_finish():
    seen = []
    roofsim.serve(concurrency=2, requests=6, prompt=64, output=4, progress=lambda done, total, what: seen.append((done, total)))
    assert seen and seen[-1] == (6, 6) and all(d <= t for d, t in seen)


def test_explain_splits_the_gap_into_causes_that_add_up():
    g = roofsim.explain(model="llama-3-8b", batch=2, prompt=128, gen=4)
    names = [c["name"] for c in g["causes"]]
    assert names[0] == "launch" and names[-1] == "tiles"
    step = g["decode_step"]
    assert step["sim_s"] == pytest.approx(g["run"]["tpot_s"])
    assert sum(step["parts"].values()) == pytest.approx(step["gap_s"], rel=1e-9)
    # Decode at batch 2 is memory-bound: HBM efficiency costs more than the sustained clock.
    assert step["parts"]["memory_s"] > step["parts"]["clock_s"]
    assert all("shape" in o for o in g["run"]["ops"])


def test_models_lists_presets_and_shipped_configs():
    rows = roofsim.models()
    by_name = {r["name"]: r for r in rows}
    assert "llama-3-8b" in by_name and "deepseek-ai/DeepSeek-V3" in by_name
    v3 = by_name["deepseek-ai/DeepSeek-V3"]
    assert v3["architecture"] == "deepseek_v3"
    assert v3["kv_bytes_per_token_bf16"] == (512 + 64) * 61 * 2
    assert 0.99 * 671e9 < v3["total_params"] < 1.01 * 671e9
    assert roofsim.model("deepseek-ai/DeepSeek-V3").hub_id == "deepseek-ai/DeepSeek-V3"


def test_model_fields_show_the_new_architectures():
    v3 = roofsim.model("deepseek-ai/DeepSeek-V3")
    f = v3.fields()
    assert v3.dense_layers == 3 and v3.shared_experts == 1 and v3.moe_intermediate == 2048
    assert f["mla"]["kv_lora_rank"] == 512 and f["mla"]["qk_rope_head_dim"] == 64
    gemma = roofsim.model("google/gemma-2-9b")
    assert gemma.sliding_window == 4096


def test_framework_settings_and_moe_routing_are_keywords():
    # The all-reduce kernel and the MoE routing are run settings like the others.
    r = roofsim.run(tp=2, batch=2, prompt=32, gen=2, allreduce="trtllm_custom")
    assert r["allreduce"] == "trtllm_custom"
    moe = dict(model="mixtral-8x7b", tp=2, batch=8, prompt=64, gen=2)
    assert roofsim.run(**moe)["routing"] == "uniform"
    assert roofsim.run(**moe, routing="power_law:1.2")["routing"] == "power_law:1.2"
    with pytest.raises(roofsim.InputError, match="routing"):
        roofsim.run(**moe, routing="zipf")
    served = roofsim.serve(model="mixtral-8x7b", ep=2, concurrency=4, requests=8, prompt=64, output=8)
    assert served["ep"] == 2 and served["chips"] == 2


def test_op_l2_resident():
    # A call replayed on the same buffers reads them from the L2: faster, its bound the L2 roof.
    hbm = roofsim.op(gemm=(16384, 64, 768))
    l2 = roofsim.op(gemm=(16384, 64, 768), l2_resident=True)
    assert l2["sim_time_s"] < 0.7 * hbm["sim_time_s"]
    assert "resident in the l2" in l2["plan"]
    assert l2["sim_time_s"] >= l2["bound_time_s"] and l2["bound_time_s"] < hbm["bound_time_s"]
    try:
        roofsim.op(gemm=(8192, 8192, 8192), l2_resident=True)
    except ValueError as e:
        assert "l2_resident: the op touches" in str(e)
    else:
        raise AssertionError("an op larger than the L2 was taken as resident")


def test_graph_draws_the_runs_ops_with_their_roofs():
    dot = roofsim.graph(prompt=512, gen=2)
    assert dot.startswith("digraph roofsim")
    assert 'label="layer0.qkv\\n512x6144x4096 bf16' in dot and "(compute)" in dot and "(memory)" in dot
    assert "layers 1-31" in dot and "layer1." not in dot
    assert "layer1.qkv" in roofsim.graph(prompt=512, gen=2, layers=2)
    with pytest.raises(roofsim.InputError, match="tp"):
        roofsim.graph(tp=3)
    with pytest.raises(roofsim.InputError, match="^layers = 0: draw at least 1 decoder layer"):
        roofsim.graph(layers=0)


def test_results_record_their_settings_as_the_command_line_does():
    """serve() and run() with no arguments report the same settings objects as the CLI, and
    those settings, given back as keyword arguments, make the same run."""
    import json
    import os
    import subprocess
    binary = os.environ.get("ROOFSIM_BIN")
    if not binary:
        pytest.skip("ROOFSIM_BIN not set (ctest sets it)")
    for kind, call in (("serve", roofsim.serve), ("run", roofsim.run)):
        cli = json.loads(subprocess.run([binary, kind, "--json", "-"], capture_output=True, text=True, check=True).stdout)
        assert call()["settings"] == cli["settings"], kind
    served = roofsim.serve(requests=8, concurrency=4, prompt=64, output=8)
    assert roofsim.serve(**served["settings"])["summary"] == served["summary"]
    first = roofsim.run(model="mixtral-8x7b", tp=2, batch=2, gen=3, stack="trtllm-1.x")
    again = roofsim.run(**first["settings"])  # None: the default, as the result says it
    assert again["settings"] == first["settings"]
    assert again["tpot_s"] == first["tpot_s"] and again["ttft_s"] == first["ttft_s"]
    # every setting of the declared tables is in the object, and only those
    declared = roofsim.settings("run")["domains"]["run"]["settings"]
    assert sorted(s["name"] for s in declared) == sorted(first["settings"])


def test_a_unit_library_loads_from_python_and_changes_what_it_models(tmp_path):
    """examples/memory_plugin: a memory model unknown until its library loads; then a decode step
    reads its weights through the model's link hops, so it takes longer than on the HBM alone."""
    import os
    library = os.environ.get("ROOFSIM_TEST_PLUGIN")
    if not library:
        pytest.skip("ROOFSIM_TEST_PLUGIN not set (ctest sets it to the example library)")
    cxl = tmp_path / "cxl.toml"
    cxl.write_text('base = "h100_sxm5"\n[memory]\nmodel = "cxl_expander"\n'
                   '[provenance]\n"memory.model" = "hypothetical: examples/memory_plugin/cxl_expander.cpp"\n')
    with pytest.raises(ValueError, match="cxl.toml:3: memory.model: unknown model 'cxl_expander'"):
        roofsim.run(hw=str(cxl), gen=4)
    with pytest.raises(ValueError, match="load_plugin .*none.so: cannot be loaded"):
        roofsim.load_plugin(str(tmp_path / "none.so"))
    roofsim.load_plugin(library)
    roofsim.load_plugin(library)  # once per process
    assert library in os.environ["ROOFSIM_PLUGINS"].split(":")
    base = roofsim.run(gen=4)
    behind_cxl = roofsim.run(hw=str(cxl), gen=4)
    assert behind_cxl["tpot_s"] > base["tpot_s"] * 1.001
