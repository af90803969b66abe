#include "serving/case_rows.hpp"

#include <cmath>

#include "core/parse.hpp"

namespace roofsim::case_rows {

std::string cell(const CsvRow& row, const std::string& column) {
  auto found = row.find(column);
  return found == row.end() ? std::string() : found->second;
}

std::optional<std::int64_t> count(const CsvRow& row, const std::string& column) {
  const std::string text = cell(row, column);
  if (text.empty()) return std::nullopt;
  const std::optional<double> v = parse_number(text);
  if (!v || *v < 0 || *v != std::floor(*v)) throw RowProblem{column + ": expected a whole number, got '" + text + "'"};
  if (*v > 1e6) throw RowProblem{column + ": " + text + " is more than roofsim takes in a cell, 1000000"};
  if (*v == 0) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

double positive_cell(const CsvRow& row, const std::string& column) {
  const std::string text = cell(row, column);
  const std::optional<double> v = parse_number(text);
  if (!v || !std::isfinite(*v) || *v <= 0) throw RowProblem{column + ": expected a positive number, got '" + text + "'"};
  return *v;
}

void assume_deployment(ServingCase& c, const std::string& assumption) {
  c.deployment_assumed = true;
  c.assumptions.push_back(assumption);
}

ColumnLayout read_layout(const CsvRow& row, const std::string& p, bool moe, ServingCase& c) {
  const std::string who = p.empty() ? "" : p.substr(0, p.size() - 1) + " workers: ";
  ColumnLayout l;
  const std::optional<std::int64_t> tp = count(row, p + "tp_size");
  l.tp = tp.value_or(1);
  if (!tp) {
    // Not silently: a file without the column, or a blank cell, runs each worker on one GPU.
    assume_deployment(c, p + "tp_size " + (row.count(p + "tp_size") ? "blank" : "column missing") + ": tensor parallel 1");
  }
  l.pp = count(row, p + "pp_size").value_or(1);
  const std::int64_t dp = count(row, p + "attention_dp_size").value_or(1);
  const std::optional<std::int64_t> moe_tp = count(row, p + "moe_tp_size"), moe_ep = count(row, p + "moe_ep_size");
  if (!moe) {
    if (dp > 1) throw RowProblem{who + "data-parallel attention of a dense model (attention DP " + std::to_string(dp) + ") is not modelled"};
    return l;
  }
  if (c.harness == ServingCase::Harness::inferencemax && p.empty() && moe_tp && moe_ep && *moe_tp > 1 && *moe_ep > 1 &&
      *moe_tp % *moe_ep == 0 && l.tp * dp == *moe_tp * *moe_ep) {
    // InferenceMAX's TensorRT-LLM runs pass --tp_size T --ep_size E and run on T GPUs (its
    // single-node configs hold at most 8; E = T, or attention DP over them with dp-attn); its
    // rows came in as tp_size x attention_dp_size = moe_tp_size x moe_ep_size = T x E.
    const std::int64_t t = *moe_tp, e = *moe_ep;
    c.assumptions.push_back("layout tp_size " + std::to_string(l.tp) + " x attention_dp_size " + std::to_string(dp) + " = moe_tp_size " +
                            std::to_string(t) + " x moe_ep_size " + std::to_string(e) + " read as InferenceMAX's --tp_size " +
                            std::to_string(t) + " --ep_size " + std::to_string(e) + " on " + std::to_string(t) + " GPUs" +
                            (dp > 1 ? ", attention data parallel over them" : ""));
    if (dp > 1) {
      l.tp = 1;
      l.ep = t;  // each GPU an attention-DP rank holding experts / t
    } else {
      l.tp = t;
      l.moe_tp = t / e == t ? 0 : t / e;  // experts spread over e groups of the TP chips
    }
    return l;
  }
  std::int64_t gpus = l.tp * dp;  // per pipeline stage
  // Unset: experts TP-split like the rest (vLLM's default without --enable-expert-parallel),
  // or whatever the other of the two leaves.
  std::int64_t mtp = moe_tp.value_or(moe_ep ? std::max<std::int64_t>(1, gpus / *moe_ep) : gpus);
  std::int64_t mep = moe_ep.value_or(std::max<std::int64_t>(1, gpus / mtp));
  std::int64_t attention_dp = dp;
  if (mtp * mep > gpus && (mtp * mep) % l.tp == 0) {
    // More GPUs under the experts than under attention: the instance has the experts' GPUs, and
    // attention runs data parallel over them (vLLM's --data-parallel-size with expert parallelism).
    attention_dp = mtp * mep / l.tp;
    c.assumptions.push_back(who + "MoE TP " + std::to_string(mtp) + " x EP " + std::to_string(mep) + " over attention TP " +
                          std::to_string(l.tp) + " x DP " + std::to_string(dp) + ": " + std::to_string(mtp * mep) +
                          " GPUs, attention data parallel over " + std::to_string(attention_dp));
    gpus = mtp * mep;
  }
  if (mtp * mep != gpus) {
    c.assumptions.push_back(who + "MoE TP " + std::to_string(mtp) + " x EP " + std::to_string(mep) + " does not fill the " +
                          std::to_string(gpus) + " GPUs of attention TP " + std::to_string(l.tp) + " x DP " + std::to_string(dp) +
                          ": experts TP-split over " + std::to_string(std::min(mtp, gpus)) + " and spread over the rest");
    mtp = std::min(mtp, gpus);
    mep = gpus / mtp;
  }
  if (attention_dp == 1) {
    l.moe_tp = mtp == l.tp ? 0 : mtp;  // experts spread inside the TP group
    return l;
  }
  // Attention DP ranks: roofsim's EP ranks of tp chips, experts TP-split over the tp chips of
  // each rank and spread over the ranks.
  l.ep = attention_dp;
  if (mtp != l.tp) {
    c.assumptions.push_back(who + "MoE TP " + std::to_string(mtp) + " x EP " + std::to_string(mep) + " over attention DP " +
                          std::to_string(attention_dp) + " run as experts spread over the " + std::to_string(attention_dp) +
                          " DP ranks, TP-split over each rank's " + std::to_string(l.tp));
  }
  return l;
}

std::int64_t nodes_for(std::int64_t gpus) { return gpus > kGpusPerNode ? (gpus + kGpusPerNode - 1) / kGpusPerNode : 0; }

void fill_concurrency(ServingCase& c, const CsvRow& row, std::int64_t limit) {
  const std::optional<std::int64_t> conc = count(row, "silicon_concurrency");
  if (conc) {
    c.concurrency = *conc;
  } else {
    c.concurrency = limit;
    assume_deployment(c, "concurrency " + std::string(cell(row, "silicon_concurrency").empty() ? "blank" : "0") +
                            ": taken as the deployment's batch limit, " + std::to_string(limit));
  }
}

}  // namespace roofsim::case_rows
