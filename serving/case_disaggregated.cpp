#include "serving/case_disaggregated.hpp"

#include <optional>

#include "serving/case_rows.hpp"
#include "serving/harness_recipes.hpp"

namespace roofsim::case_rows {

namespace {

// A recipe pool's layout as roofsim runs it (ColumnLayout).
ColumnLayout recipe_layout(const RecipePool& p) {
  ColumnLayout l;
  if (p.layout == "dep") {
    l.ep = p.gpus;  // each GPU an attention-DP rank holding experts / gpus
  } else {
    l.tp = p.gpus;
    if (p.layout == "tep") l.moe_tp = 1;  // experts spread over the TP group
  }
  return l;
}

// An InferenceMAX disaggregated row's deployment from the recipes its configs name at the row's
// concurrency (configs/harnesses/inferencemax_disagg.csv), narrowed by what the row gives; the
// fields they agree on are applied, and said on the row. False: no recipe at that point.
bool deploy_inferencemax_recipe(const CsvRow& row, ServingCase& c) {
  const std::optional<std::int64_t> pw = count(row, "prefill_num_workers"), dw = count(row, "decode_num_workers");
  const std::optional<std::int64_t> decode_ep = count(row, "decode_moe_ep_size");
  const std::optional<RecipeDeployment> d =
      recipe_deployment(inferencemax_disagg_recipes(), c.model_path, c.backend, c.system, c.isl, c.osl, c.concurrency, pw, dw,
                        decode_ep ? std::optional<bool>(*decode_ep > 1) : std::nullopt);
  if (!d) return false;
  std::string said = "deployed as InferenceMAX's recipe" + std::string(d->recipes.size() > 1 ? "s" : "") + " for concurrency " +
                     std::to_string(c.concurrency) + " (" + d->recipes.front() + (d->recipes.size() > 1 ? " and " + std::to_string(d->recipes.size() - 1) + " more" : "") + ")";
  std::vector<std::string> unknown;
  if (d->prefill_workers) c.prefill_instances = *d->prefill_workers; else unknown.push_back("prefill workers");
  if (d->decode_workers) c.decode_instances = *d->decode_workers; else unknown.push_back("decode workers");
  if (d->prefill) {
    const ColumnLayout l = recipe_layout(*d->prefill);
    c.prefill_tp = l.tp;
    c.prefill_ep = l.ep;
    c.prefill_moe_tp = l.moe_tp;
    c.prefill_max_batch = d->prefill->max_batch;
    c.prefill_max_tokens = d->prefill->max_tokens;
    said += "; prefill " + d->prefill->layout + std::to_string(d->prefill->gpus) + ", " + std::to_string(d->prefill->max_batch) +
            " prompts and " + std::to_string(d->prefill->max_tokens) + " tokens per iteration";
  } else {
    unknown.push_back("prefill layout");
  }
  if (d->decode) {
    const ColumnLayout l = recipe_layout(*d->decode);
    c.tp = c.decode_tp = l.tp;
    c.ep = l.ep;
    c.moe_tp = l.moe_tp;
    // SGLang's --max-running-requests is the worker's, split over its DP-attention ranks.
    const std::int64_t ranks = l.ep;
    c.batch = c.backend == "sglang" ? (d->decode->max_batch + ranks - 1) / ranks : d->decode->max_batch;
    c.batch_from_recipe = true;
    c.decode_first_response = d->decode->first_response;
    said += "; decode " + d->decode->layout + std::to_string(d->decode->gpus) + ", at most " + std::to_string(d->decode->max_batch) +
            (c.backend == "sglang" ? " running per worker" : " per scheduler");
    if (count(row, "decode_batch_size")) said += " (the row's decode_batch_size, concurrency / decode workers, is not a limit)";
  } else {
    unknown.push_back("decode layout and batch");
  }
  if (d->without_speculation) said += "; of the recipes at this concurrency, those without MTP (the others deploy otherwise; MTP is not simulated)";
  if (d->mtp && *d->mtp > 0) said += "; its MTP drafts " + std::to_string(*d->mtp) + " tokens per step, not simulated (no acceptance rate for these runs)";
  if (!d->mtp) said += "; with or without MTP (the recipes differ; not simulated)";
  if (!unknown.empty()) {
    std::string list;
    for (const std::string& u : unknown) list += (list.empty() ? "" : ", ") + u;
    said += "; the recipes differ in " + list;
  }
  c.assumptions.push_back(said);
  if (!d->prefill_workers || !d->decode_workers || !d->decode) c.deployment_assumed = true;
  return true;
}

// The disaggregated columns: each pool's layout, worker counts and limits, or an InferenceMAX
// recipe's where the row leaves them out.

}  // namespace

void read_disaggregated(const CsvRow& row, bool moe, ServingCase& c) {
  const ColumnLayout pre = read_layout(row, "prefill_", moe, c), dec = read_layout(row, "decode_", moe, c);
  if (pre.pp > 1 || dec.pp > 1) throw RowProblem{"pipeline-parallel disaggregated workers are not modelled"};
  c.tp = c.decode_tp = dec.tp;
  c.ep = dec.ep;
  c.moe_tp = dec.moe_tp;
  c.prefill_tp = pre.tp;
  c.prefill_ep = pre.ep;
  c.prefill_moe_tp = pre.moe_tp;
  const std::optional<std::int64_t> pw = count(row, "prefill_num_workers"), dw = count(row, "decode_num_workers");
  const std::optional<std::int64_t> pb = count(row, "prefill_batch_size"), db = count(row, "decode_batch_size");
  c.prefill_instances = pw.value_or(1);
  c.decode_instances = dw.value_or(1);
  fill_concurrency(c, row, db.value_or(0) * c.decode_instances * dec.ep);
  if (c.concurrency <= 0) throw RowProblem{"neither silicon_concurrency nor decode_batch_size is given"};
  c.prefill_batch = pb.value_or(1);
  const bool recipe = c.harness == ServingCase::Harness::inferencemax && deploy_inferencemax_recipe(row, c);
  if (!recipe && (!pw || !dw)) assume_deployment(c, "disaggregated worker counts blank: one prefill and one decode worker");
  if (c.batch_from_recipe) return;
  if (db) {
    c.batch = *db;
  } else {
    c.batch = (c.concurrency + c.decode_instances * c.ep - 1) / (c.decode_instances * c.ep);
    assume_deployment(c, "decode_batch_size blank: each decode scheduler's batch limit holds its share of the clients, " +
                            std::to_string(c.batch));
  }
  if (!recipe && !pb) assume_deployment(c, "prefill_batch_size blank: 1 prompt per prefill iteration (TensorRT-LLM) or the stack's token budget");
}

}  // namespace roofsim::case_rows
