// Request traces: reading a CSV or JSON Lines trace into requests, and writing requests back as
// a trace CSV (read_trace, write_trace in serving/workload.hpp).
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/parse.hpp"
#include "serving/workload.hpp"

namespace roofsim {

namespace {

struct TraceRow {
  std::optional<double> arrival_s, arrival_ms;
  std::optional<std::int64_t> prompt_tokens, output_tokens, prefix_id, prefix_tokens;
};

const std::set<std::string>& trace_columns() {
  static const std::set<std::string> columns = {"arrival_s", "arrival_ms", "prompt_tokens", "output_tokens", "prefix_id",
                                                "prefix_tokens"};
  return columns;
}

constexpr const char* kColumnList = "arrival_s or arrival_ms, prompt_tokens, output_tokens, and optionally prefix_id, prefix_tokens";

std::string at(const std::string& path, long line, const std::string& key) {
  return path + ":" + std::to_string(line) + ": " + key + ": ";
}

// What a trace's rows so far fix for the next: the last arrival time and its line, and each
// shared prefix's length and the line that first gave it.
struct TraceSoFar {
  double previous_s = 0;
  long previous_line = 0;
  std::map<std::int64_t, std::pair<std::int64_t, long>> prefixes;
};

// Checks one row and appends it.
void add_request(const std::string& path, long line, const TraceRow& r, std::vector<RequestSpec>& out, TraceSoFar& so_far) {
  if (out.size() >= static_cast<std::size_t>(kMaxWorkloadRequests)) {
    throw InputError(path + ":" + std::to_string(line) + ": more than " + std::to_string(kMaxWorkloadRequests) +
                     " requests in one trace");
  }
  if (r.arrival_s && r.arrival_ms) {
    throw InputError(at(path, line, "arrival_s and arrival_ms") + "give one of them, not both");
  }
  if (!r.arrival_s && !r.arrival_ms) throw InputError(at(path, line, "arrival_s") + "missing (or give arrival_ms)");
  const std::string time_key = r.arrival_s ? "arrival_s" : "arrival_ms";
  const double raw = r.arrival_s ? *r.arrival_s : *r.arrival_ms;
  if (!std::isfinite(raw) || raw < 0) {
    throw InputError(at(path, line, time_key) + "must be a finite time >= 0, got " + format_general(raw));
  }
  const double t = (r.arrival_s ? raw : raw / 1000.0) + 0.0;  // + 0.0: -0 becomes 0
  if (t > kMaxArrivalS) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", raw);  // as typed, not rounded to six digits
    throw InputError(at(path, line, time_key) + buf + " is beyond the latest arrival roofsim simulates, " +
                     format_general(kMaxArrivalS) + " s (11.6 days)");
  }
  if (!out.empty() && t < so_far.previous_s) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.17g s is before the previous request's %.17g s (line %ld)", t, so_far.previous_s,
                  so_far.previous_line);
    throw InputError(at(path, line, time_key) + buf + ": a trace must be sorted by arrival time");
  }
  RequestSpec q;
  q.id = static_cast<std::int64_t>(out.size());
  q.line = line;
  q.arrival_s = t;
  const std::pair<const char*, const std::optional<std::int64_t>*> lengths[] = {{"prompt_tokens", &r.prompt_tokens},
                                                                                 {"output_tokens", &r.output_tokens}};
  for (const auto& [key, value] : lengths) {
    if (!*value) throw InputError(at(path, line, key) + "missing");
    if (**value < 1 || **value > kMaxTokens) {
      throw InputError(at(path, line, key) + std::to_string(**value) + " is not between 1 and " +
                       std::to_string(kMaxTokens) + " tokens");
    }
  }
  q.prompt_tokens = *r.prompt_tokens;
  q.output_tokens = *r.output_tokens;
  if (r.prefix_id) {
    if (*r.prefix_id < -1) {
      throw InputError(at(path, line, "prefix_id") + std::to_string(*r.prefix_id) +
                       ": expected an integer >= 0 (or -1 or nothing for no shared prefix)");
    }
    q.prefix_id = *r.prefix_id;
  }
  if (r.prefix_tokens) {
    const std::int64_t p = *r.prefix_tokens;
    if (p < 0 || p > q.prompt_tokens) {
      throw InputError(at(path, line, "prefix_tokens") + std::to_string(p) + " is not between 0 and the prompt's " +
                       std::to_string(q.prompt_tokens) + " tokens");
    }
    if (p > 0 && q.prefix_id < 0) throw InputError(at(path, line, "prefix_tokens") + std::to_string(p) + " without a prefix_id");
    q.prefix_tokens = p;
  }
  if (q.prefix_id >= 0) {
    // A prefix is shared only with its length: without one nothing would be shared, silently.
    if (!r.prefix_tokens) {
      throw InputError(at(path, line, "prefix_id") + std::to_string(q.prefix_id) +
                       " without prefix_tokens: give how many of the prompt's first tokens the prefix is");
    }
    const auto [it, first] = so_far.prefixes.emplace(q.prefix_id, std::make_pair(q.prefix_tokens, line));
    if (!first && it->second.first != q.prefix_tokens) {
      throw InputError(at(path, line, "prefix_tokens") + std::to_string(q.prefix_tokens) + " for prefix " +
                       std::to_string(q.prefix_id) + ", which line " + std::to_string(it->second.second) + " gave " +
                       std::to_string(it->second.first) + " tokens: a prefix has one length");
    }
  }
  so_far.previous_s = t;
  so_far.previous_line = line;
  out.push_back(q);
}

std::vector<RequestSpec> read_trace_csv(const std::string& path) {
  const std::vector<CsvRow> rows = read_csv(path);
  if (rows.empty()) throw InputError(path + ": no requests (a trace needs a header line and at least one row)");
  for (const auto& [column, value] : rows.front()) {
    if (column == "#line") continue;
    if (!trace_columns().count(column)) {
      throw InputError(path + ": unknown column '" + column + "' (expected " + kColumnList + ")");
    }
  }
  const CsvRow& first = rows.front();
  if (first.count("arrival_s") && first.count("arrival_ms")) {
    throw InputError(path + ": both arrival_s and arrival_ms columns: give one of them");
  }
  for (const char* column : {"prompt_tokens", "output_tokens"}) {
    if (!first.count(column)) throw InputError(path + ": missing column '" + std::string(column) + "' (expected " + kColumnList + ")");
  }
  if (!first.count("arrival_s") && !first.count("arrival_ms")) {
    throw InputError(path + ": missing column 'arrival_s' or 'arrival_ms' (expected " + kColumnList + ")");
  }
  const std::string time_column = first.count("arrival_s") ? "arrival_s" : "arrival_ms";

  std::vector<RequestSpec> out;
  TraceSoFar so_far;
  for (const CsvRow& row : rows) {
    const long line = std::stol(row.at("#line"));
    TraceRow r;
    const std::string& time_text = csv_text(path, row, time_column);
    const auto t = parse_strict_number(time_text);
    if (!t) throw InputError(at(path, line, time_column) + "expected a time (a number >= 0), got '" + time_text + "'");
    (time_column == "arrival_s" ? r.arrival_s : r.arrival_ms) = *t;
    r.prompt_tokens = csv_positive_integer(path, row, "prompt_tokens");
    r.output_tokens = csv_positive_integer(path, row, "output_tokens");
    // An empty prefix cell is no prefix, as write_trace writes it.
    if (row.count("prefix_id") && !row.at("prefix_id").empty()) r.prefix_id = csv_integer(path, row, "prefix_id");
    if (row.count("prefix_tokens") && !row.at("prefix_tokens").empty()) {
      r.prefix_tokens = csv_integer(path, row, "prefix_tokens");
    }
    add_request(path, line, r, out, so_far);
  }
  return out;
}

// A JSON value that must be a whole number; throws naming the line and key.
std::int64_t json_integer(const std::string& path, long line, const std::string& key, const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      throw InputError(at(path, line, key) + v.dump() + " is out of range");
    }
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= 0x1.0p53) return static_cast<std::int64_t>(d);
  }
  throw InputError(at(path, line, key) + "expected a whole number, got " + v.dump());
}

std::vector<RequestSpec> read_trace_jsonl(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw InputError(path + ": cannot open file");
  std::vector<RequestSpec> out;
  TraceSoFar so_far;
  std::string text;
  long line = 0;
  std::uint64_t bytes = 0;
  while (read_bounded_line(f, text, path, line + 1)) {
    ++line;
    bytes += text.size() + 1;
    check_table_bytes(path, line, bytes);
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(path + ":" + std::to_string(line) + ": not a JSON object (JSON Lines: one object per line): " + e.what());
    }
    if (!j.is_object()) {
      throw InputError(path + ":" + std::to_string(line) + ": expected a JSON object (JSON Lines: one object per line), got " +
                       std::string(j.type_name()));
    }
    TraceRow r;
    for (const auto& [key, value] : j.items()) {
      if (!trace_columns().count(key)) {
        throw InputError(at(path, line, key) + "unknown key (expected " + kColumnList + ")");
      }
      if (key == "arrival_s" || key == "arrival_ms") {
        if (!value.is_number()) throw InputError(at(path, line, key) + "expected a time (a number >= 0), got " + value.dump());
        (key == "arrival_s" ? r.arrival_s : r.arrival_ms) = value.get<double>();
      } else if (key == "prefix_id" && value.is_null()) {
        // no shared prefix
      } else {
        const std::int64_t v = json_integer(path, line, key, value);
        if (key == "prompt_tokens") r.prompt_tokens = v;
        if (key == "output_tokens") r.output_tokens = v;
        if (key == "prefix_id") r.prefix_id = v;
        if (key == "prefix_tokens") r.prefix_tokens = v;
      }
    }
    add_request(path, line, r, out, so_far);
  }
  if (f.bad()) throw InputError(path + ": read error");
  if (out.empty()) throw InputError(path + ": no requests (a trace needs at least one line)");
  return out;
}

}  // namespace

std::vector<RequestSpec> read_trace(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": a folder, not a trace file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot open the trace file");
  // The format: by extension, else by the first character that is not a space.
  std::optional<char> first;
  char c;
  std::string start;  // the first three bytes
  while (f.get(c)) {
    if (start.size() < 3) start += c;
    if (!std::isspace(static_cast<unsigned char>(c))) {
      first = c;
      break;
    }
  }
  if (!first) throw InputError(path + ": empty trace file (expected a CSV with a header, or JSON Lines)");
  while (start.size() < 3 && f.get(c)) start += c;
  f.close();
  if (start == "\xEF\xBB\xBF") throw InputError(path + ":1: starts with a byte order mark: save it as plain UTF-8");
  const bool jsonl = ends_with(path, ".jsonl") || ends_with(path, ".json") ||
                     (!ends_with(path, ".csv") && (*first == '{' || *first == '['));
  if (!jsonl && *first == '{') {
    throw InputError(path + ":1: a JSON object in a .csv file: name a JSON Lines trace .jsonl");
  }
  if (jsonl && *first == '[') {
    throw InputError(path + ":1: a JSON array; a trace is JSON Lines (one object per line) or CSV");
  }
  return jsonl ? read_trace_jsonl(path) : read_trace_csv(path);
}

void write_trace(const std::string& path, const std::vector<RequestSpec>& requests) {
  if (requests.empty()) throw InputError(path + ": no requests to write (a trace needs at least one)");
  // Refuse what read_trace would refuse, so that the file reads back.
  double previous = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const RequestSpec& r = requests[i];
    const std::string which = path + ": request " + std::to_string(r.id) + ": ";
    if (r.arrival_s < 0) {
      throw InputError(which + "closed-loop request (no arrival time): a trace needs arrival times");
    }
    if (!std::isfinite(r.arrival_s)) throw InputError(which + "arrival time " + format_general(r.arrival_s) + " is not finite");
    if (i > 0 && r.arrival_s < previous) throw InputError(which + "arrives before the request written before it");
    previous = r.arrival_s;
    if (r.prompt_tokens < 1 || r.prompt_tokens > kMaxTokens || r.output_tokens < 1 || r.output_tokens > kMaxTokens) {
      throw InputError(which + "prompt and output lengths must be between 1 and " + std::to_string(kMaxTokens) + " tokens");
    }
    if (r.prefix_id < -1 || r.prefix_tokens < 0 || r.prefix_tokens > r.prompt_tokens ||
        (r.prefix_id < 0 && r.prefix_tokens > 0)) {
      throw InputError(which + "prefix_id " + std::to_string(r.prefix_id) + " with prefix_tokens " +
                       std::to_string(r.prefix_tokens) + " cannot be read back");
    }
  }
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw InputError(path + ": cannot write the trace: " + std::strerror(errno));
  bool ok = std::fputs("arrival_s,prompt_tokens,output_tokens,prefix_id,prefix_tokens\n", f) >= 0;
  for (const RequestSpec& r : requests) {
    if (!ok) break;
    char time[40];
    // 17 significant digits: reads back as the same double.
    std::snprintf(time, sizeof time, "%.17g", r.arrival_s + 0.0);
    const std::string prefix_id = r.prefix_id >= 0 ? std::to_string(r.prefix_id) : "";
    const std::string prefix_tokens = r.prefix_id >= 0 ? std::to_string(r.prefix_tokens) : "";
    ok = std::fprintf(f, "%s,%lld,%lld,%s,%s\n", time, static_cast<long long>(r.prompt_tokens),
                      static_cast<long long>(r.output_tokens), prefix_id.c_str(), prefix_tokens.c_str()) >= 0;
  }
  const int write_errno = ok ? 0 : errno;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    throw InputError(path + ": cannot write the trace: " + std::strerror(ok ? errno : write_errno));
  }
}

}  // namespace roofsim
