#include "report/baseline.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>

#include "util/error.h"
#include "util/file_io.h"
#include "util/json_input.h"
#include "util/sha256.h"

namespace cc::report {
namespace {

std::string g(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

bool is_number(const nlohmann::json& j, const char* key) { return j.contains(key) && j[key].is_number(); }

std::string outcome(const nlohmann::json& c) {
  std::string s = c.value("verdict", "?");
  if (c.contains("measured") && is_number(c["measured"], "value")) s += " " + g(c["measured"]["value"].get<double>());
  return s;
}

bool is_pass(const std::string& v) { return v == "PASS"; }
bool is_fail(const std::string& v) { return v == "FAIL" || v == "INCONCLUSIVE"; }

// Whether two values are the same measurement: proportions exactly, scalars within tolerance;
// two NaNs or two equal infinities are the same.
bool same_value(double a, double b, bool proportion, const Tolerance& tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  if (proportion) return a == b;
  return std::fabs(a - b) <= tol.scalar_abs + tol.scalar_rel * std::fabs(a);
}

double number_or_nan(const nlohmann::json& j, const char* key) {
  return is_number(j, key) ? j[key].get<double>() : std::nan("");
}

// A control's seed rows, without copying them (an empty array when it has none).
const nlohmann::json& control_seeds(const nlohmann::json& c) {
  static const nlohmann::json none = nlohmann::json::array();
  return c.contains("seeds") && c["seeds"].is_array() ? c["seeds"] : none;
}

// One control's outcome in one line: "unavailable (why)" or each seed's value and verdict.
std::string control_outcome(const nlohmann::json& c) {
  if (c.contains("unavailable") && control_seeds(c).empty()) return "unavailable (" + c.value("unavailable", "") + ")";
  std::string out;
  for (const auto& s : control_seeds(c))
    out += (out.empty() ? "" : ", ") + std::string("seed ") + s.value("seed", nlohmann::json()).dump() + " " +
           g(number_or_nan(s, "value")) + " " + s.value("verdict", "");
  return out.empty() ? "no seed" : out;
}

// The negative controls of one claim on both sides: the same controls, each seed's verdict and value.
void control_changes(const nlohmann::json& a, const nlohmann::json& b, const Tolerance& tol, std::vector<Change>& out) {
  const std::string id = a["id"];
  std::map<std::string, nlohmann::json> ca, cb;
  for (const auto& c : a.value("controls", nlohmann::json::array())) ca[c.value("control", "")] = c;
  for (const auto& c : b.value("controls", nlohmann::json::array())) cb[c.value("control", "")] = c;
  for (const auto& [name, x] : ca) {
    const auto it = cb.find(name);
    if (it == cb.end()) {
      out.push_back({id, "value", "control " + name, "not measured", "the negative controls changed"});
      return;
    }
    const nlohmann::json &seeds_a = control_seeds(x), &seeds_b = control_seeds(it->second);
    bool same = seeds_a.size() == seeds_b.size() && x.contains("unavailable") == it->second.contains("unavailable");
    for (size_t i = 0; same && i < seeds_a.size(); ++i) {
      const auto& sa = seeds_a[i];
      const auto& sb = seeds_b[i];
      same = sa.value("seed", int64_t{-1}) == sb.value("seed", int64_t{-1}) &&
             sa.value("verdict", "") == sb.value("verdict", "") &&
             same_value(number_or_nan(sa, "value"), number_or_nan(sb, "value"), false, tol);
    }
    if (!same) {
      out.push_back({id, "value", control_outcome(x), control_outcome(it->second), "negative control " + name});
      return;
    }
  }
  for (const auto& [name, y] : cb)
    if (!ca.count(name)) {
      out.push_back({id, "value", "not measured", "control " + name, "the negative controls changed"});
      return;
    }
}

// A list of other measurements of the claim on both sides, each judged by its rule: the rule's other
// evaluation draws ("draws", claims::Rule::draws) or its other readings ("readings", claims::Sensitivity).
// Each entry's verdict and every seed's value and n; true when one moved (one row says enough).
bool remeasure_changes(const nlohmann::json& a, const nlohmann::json& b, const char* list, bool proportion,
                       const Tolerance& tol, std::vector<Change>& out) {
  const nlohmann::json none = nlohmann::json::array();
  const nlohmann::json &da = a.contains(list) ? a[list] : none, &db = b.contains(list) ? b[list] : none;
  const std::string id = a["id"];
  const bool draws = std::string(list) == "draws";
  auto name = [&](const nlohmann::json& x, size_t k) {
    return draws ? "evaluation draw " + std::to_string(k + 2) + " (eval_seed " +
                       x.value("eval_seed", nlohmann::json()).dump() + ")"
                 : "reading " + x.value("at", "") + " = " + x.value("value", nlohmann::json()).dump();
  };
  if (da.size() != db.size()) {
    out.push_back({id, "value", std::to_string(da.size()) + " other " + list,
                   std::to_string(db.size()) + " other " + list, std::string("the ") + list + " measured changed"});
    return true;
  }
  for (size_t k = 0; k < da.size(); ++k) {
    const nlohmann::json &x = da[k], &y = db[k];
    bool same = name(x, k) == name(y, k) && x.value("verdict", "") == y.value("verdict", "") &&
                x.value("seeds", none).size() == y.value("seeds", none).size();
    for (size_t i = 0; same && i < x.value("seeds", none).size(); ++i) {
      const nlohmann::json &sx = x["seeds"][i], &sy = y["seeds"][i];
      same = sx.value("n", int64_t{0}) == sy.value("n", int64_t{0}) &&
             same_value(number_or_nan(sx, "value"), number_or_nan(sy, "value"), proportion, tol);
    }
    if (!same) {
      out.push_back({id, "value", x.value("verdict", "") + " " + g(number_or_nan(x, "measured")),
                     y.value("verdict", "") + " " + g(number_or_nan(y, "measured")), name(x, k)});
      return true;
    }
  }
  return false;
}

// The value changes of one claim measured on both sides: the aggregate, each seed, each evaluation draw
// and each control.
void value_changes(const nlohmann::json& a, const nlohmann::json& b, const Tolerance& tol, std::vector<Change>& out) {
  const bool proportion = a.value("measured_is_proportion", false);
  const std::string id = a["id"];
  if (a.contains("measured") && b.contains("measured")) {
    for (const char* key : {"value", "ci_low", "ci_high"}) {
      const double x = number_or_nan(a["measured"], key), y = number_or_nan(b["measured"], key);
      if (!same_value(x, y, proportion, tol)) {
        out.push_back(
            {id, "value", g(x), g(y), std::string("measured ") + key + (proportion ? " (exact: a proportion)" : "")});
        return;  // one row per claim: the first value that moved says enough
      }
    }
  }
  std::map<int64_t, nlohmann::json> seeds_a, seeds_b;
  for (const auto& s : a.value("seeds", nlohmann::json::array())) seeds_a[s.value("seed", int64_t{-1})] = s;
  for (const auto& s : b.value("seeds", nlohmann::json::array())) seeds_b[s.value("seed", int64_t{-1})] = s;
  for (const auto& [seed, sa] : seeds_a) {
    auto it = seeds_b.find(seed);
    if (it == seeds_b.end()) {
      out.push_back(
          {id, "value", "seed " + std::to_string(seed) + " measured", "not measured", "the seeds measured changed"});
      return;
    }
    const auto& sb = it->second;
    if (sa.value("n", int64_t{0}) != sb.value("n", int64_t{0}) ||
        !same_value(number_or_nan(sa, "value"), number_or_nan(sb, "value"), proportion, tol)) {
      out.push_back({id, "value",
                     g(number_or_nan(sa, "value")) + " (n " + std::to_string(sa.value("n", int64_t{0})) + ")",
                     g(number_or_nan(sb, "value")) + " (n " + std::to_string(sb.value("n", int64_t{0})) + ")",
                     "seed " + std::to_string(seed) + (proportion ? " (exact: a proportion)" : "")});
      return;
    }
  }
  for (const auto& [seed, sb] : seeds_b)
    if (!seeds_a.count(seed)) {
      out.push_back(
          {id, "value", "not measured", "seed " + std::to_string(seed) + " measured", "the seeds measured changed"});
      return;
    }
  if (remeasure_changes(a, b, "draws", proportion, tol, out)) return;
  if (remeasure_changes(a, b, "readings", proportion, tol, out)) return;
  control_changes(a, b, tol, out);
}

// What a claim asserts, as its report row states it: the rule, the subject (run or sweep, checkpoint,
// seeds), the measurement with its parameters, the negative controls (each as declared, without its
// results) and the tier. A title, quote or note is wording, not meaning. Empty for a claim that did
// not load (an ERROR row has no rule).
nlohmann::json meaning_of(const nlohmann::json& c) {
  if (c.contains("meaning")) return c["meaning"];  // a baseline row keeps it
  nlohmann::json m = nlohmann::json::object();
  if (!c.contains("rule")) return m;
  for (const char* key : {"rule", "subject", "measure", "tier", "role"})
    if (c.contains(key)) m[key] = c[key];
  for (const auto& s : c.value("sensitivity", nlohmann::json::array()))  // its `why` is wording
    m["sensitivity"].push_back({{"at", s.value("at", "")}, {"values", s.value("values", nlohmann::json())}});
  m["controls"] = nlohmann::json::array();
  for (const auto& ctl : c.value("controls", nlohmann::json::array())) {
    nlohmann::json declared = ctl;
    declared.erase("seeds");
    declared.erase("unavailable");
    m["controls"].push_back(declared);
  }
  return m;
}

std::string meaning_text(const nlohmann::json& v) {
  if (v.is_null()) return "(none)";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// One change per part of the claim's meaning that differs ("rule changed: each seed > 0.98 -> each
// seed > 0.5"): a loosened rule, another subject or a removed control is a change whatever the verdict.
void meaning_changes(const std::string& id, const nlohmann::json& a, const nlohmann::json& b,
                     std::vector<Change>& out) {
  const nlohmann::json ma = meaning_of(a), mb = meaning_of(b);
  if (ma.empty() || mb.empty() || ma == mb) return;
  for (const char* key : {"rule", "subject", "measure", "controls", "sensitivity", "tier", "role"}) {
    const nlohmann::json va = ma.value(key, nlohmann::json()), vb = mb.value(key, nlohmann::json());
    if (va != vb)
      out.push_back({id, std::string(key) + " changed", meaning_text(va), meaning_text(vb),
                     "the claim file now asserts something else; its baseline row must be regenerated"});
  }
}

int rank(const std::string& kind) {
  static const std::vector<std::string> order = {"rule changed",
                                                 "subject changed",
                                                 "measure changed",
                                                 "controls changed",
                                                 "sensitivity changed",
                                                 "tier changed",
                                                 "role changed",
                                                 "regression",
                                                 "not in the baseline",
                                                 "unexpected pass",
                                                 "verdict",
                                                 "no longer measured",
                                                 "value",
                                                 "added",
                                                 "removed"};
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] == kind) return static_cast<int>(i);
  return static_cast<int>(order.size());
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

// One other measurement of a claim (an evaluation draw, a reading) as a baseline row keeps it: the keys
// that name it, its verdict and value, each seed's value, n and verdict.
nlohmann::json remeasured_row(const nlohmann::json& d, std::initializer_list<const char*> names) {
  nlohmann::json one = {{"verdict", d["verdict"]}, {"measured", d["measured"]}};
  for (const char* key : names) one[key] = d[key];
  for (const auto& s : d.value("seeds", nlohmann::json::array()))
    one["seeds"].push_back({{"seed", s["seed"]}, {"value", s["value"]}, {"n", s["n"]}, {"verdict", s["verdict"]}});
  return one;
}

}  // namespace

nlohmann::json baseline_from_report(const nlohmann::json& report, const nlohmann::json& tolerance,
                                    const std::string& command) {
  nlohmann::json claims = nlohmann::json::array();
  for (const auto& c : report.at("claims")) {
    nlohmann::json e = {{"id", c["id"]},
                        {"file", c.value("file", "")},
                        {"tier", c.value("tier", "")},
                        {"verdict", c["verdict"]},
                        {"measured_is_proportion", c.value("measured_is_proportion", false)}};
    if (const nlohmann::json m = meaning_of(c); !m.empty()) {
      e["meaning"] = m;
      e["meaning_sha256"] = sha256_hex(m.dump());
    }
    if (c.contains("measured")) e["measured"] = c["measured"];
    if (c.contains("seeds")) {
      e["seeds"] = nlohmann::json::array();
      for (const auto& s : c["seeds"]) {
        nlohmann::json one = {{"seed", s["seed"]}, {"verdict", s["verdict"]}};
        for (const char* key : {"value", "ci_low", "ci_high", "n"})
          if (s.contains(key)) one[key] = s[key];
        e["seeds"].push_back(one);
      }
    }
    for (const auto& d : c.value("draws", nlohmann::json::array()))
      e["draws"].push_back(remeasured_row(d, {"eval_seed"}));
    for (const auto& d : c.value("readings", nlohmann::json::array()))
      e["readings"].push_back(remeasured_row(d, {"at", "value"}));
    for (const auto& ctl : c.value("controls", nlohmann::json::array())) {
      nlohmann::json one = {{"control", ctl.value("control", "")}, {"seeds", nlohmann::json::array()}};
      if (ctl.contains("unavailable")) one["unavailable"] = ctl["unavailable"];
      for (const auto& s : ctl.value("seeds", nlohmann::json::array()))
        one["seeds"].push_back({{"seed", s["seed"]}, {"verdict", s["verdict"]}, {"value", s["value"]}, {"n", s["n"]}});
      e["controls"].push_back(one);
    }
    claims.push_back(e);
  }
  return {{"format", kBaselineFormat},
          {"command", command},
          {"about",
           "Expected outcomes of every claim on the committed fixtures. `claimcheck verify --baseline` fails "
           "(exit 3) when a verdict or a measured value moves; change this file only with the reason in the commit."},
          {"platform", report.value("runtime", nlohmann::json::object())},
          {"tolerance", tolerance},
          {"claims", claims}};
}

nlohmann::json merge_baseline(const nlohmann::json& old, const nlohmann::json& fresh) {
  nlohmann::json out = fresh;
  std::set<std::string> have;
  for (const auto& c : fresh.at("claims")) have.insert(c["id"]);
  bool kept = false;
  for (const auto& c : old.at("claims")) {
    const std::string file = c.value("file", "");
    if (have.count(c["id"]) || file.empty() || !std::filesystem::exists(file)) continue;
    out["claims"].push_back(c);
    kept = true;
  }
  if (kept) {
    std::sort(out["claims"].begin(), out["claims"].end(), [](const nlohmann::json& a, const nlohmann::json& b) {
      return a.value("file", "") < b.value("file", "");
    });
    nlohmann::json commands = old.value("commands", nlohmann::json::array());
    if (commands.empty() && old.contains("command")) commands.push_back(old["command"]);
    commands.push_back(fresh["command"]);
    out.erase("command");
    out["commands"] = commands;
  }
  return out;
}

Tolerance tolerance_for(const nlohmann::json& baseline, const std::string& device) {
  Tolerance t;
  if (!baseline.contains("tolerance") || !baseline["tolerance"].is_object()) return t;
  const auto& all = baseline["tolerance"];
  const std::string key = device.rfind("cuda", 0) == 0 ? "cuda" : device;
  const nlohmann::json& one = all.contains(key)         ? all[key]
                              : all.contains("default") ? all["default"]
                                                        : nlohmann::json::object();
  t.scalar_rel = one.value("scalar_rel", 0.0);
  t.scalar_abs = one.value("scalar_abs", 0.0);
  return t;
}

std::vector<Change> compare_outcomes(const nlohmann::json& before, const nlohmann::json& after, const Tolerance& tol,
                                     const std::set<std::string>& compared_ids) {
  std::map<std::string, const nlohmann::json*> a, b;
  std::vector<std::string> order;
  for (const auto& c : before.at("claims")) {
    a[c["id"]] = &c;
    order.push_back(c["id"]);
  }
  for (const auto& c : after.at("claims")) {
    if (!compared_ids.empty() && !compared_ids.count(c["id"])) continue;
    b[c["id"]] = &c;
    if (!a.count(c["id"])) order.push_back(c["id"]);
  }
  std::vector<Change> out;
  for (const auto& id : order) {
    const nlohmann::json* x = a.count(id) ? a[id] : nullptr;
    const nlohmann::json* y = b.count(id) ? b[id] : nullptr;
    if (!x) {
      out.push_back({id, "added", "—", outcome(*y), "not in the baseline"});
      continue;
    }
    if (!y) {
      // Outside a partial run, a claim is removed only when its file is gone.
      const std::string file = x->value("file", "");
      const bool gone = !file.empty() && !std::filesystem::exists(file);
      if (compared_ids.empty() || gone)
        out.push_back({id, "removed", outcome(*x), "—", gone ? file + " is gone" : "not in the newer outcomes"});
      continue;
    }
    meaning_changes(id, *x, *y, out);
    const std::string va = (*x)["verdict"], vb = (*y)["verdict"];
    if (va == "SKIPPED" && vb != "SKIPPED") {
      // The baseline did not measure it (its budget, a foreign kernel): nothing to compare with, so it
      // is judged on its own. A verdict other than PASS is no recorded finding; it is a change.
      if (!is_pass(vb))
        out.push_back({id, "not in the baseline", outcome(*x), outcome(*y),
                       "the baseline did not measure it (tier " + x->value("tier", std::string("?")) +
                           "); measured here, only PASS agrees with it: " + y->value("reason", "")});
      continue;
    }
    if (vb == "SKIPPED") {
      if (va != vb && x->value("tier", "") == "fixture")
        out.push_back({id, "no longer measured", outcome(*x), outcome(*y), y->value("reason", "")});
      continue;  // not measured here (a budget, a foreign kernel): nothing to compare
    }
    if (va != vb) {
      const std::string kind = is_pass(va) && !is_pass(vb)  ? "regression"
                               : is_fail(va) && is_pass(vb) ? "unexpected pass"
                                                            : "verdict";
      out.push_back({id, kind, outcome(*x), outcome(*y), y->value("reason", "")});
      continue;
    }
    value_changes(*x, *y, tol, out);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Change& p, const Change& q) { return rank(p.kind) < rank(q.kind); });
  return out;
}

std::string changes_markdown(const std::vector<Change>& changes) {
  if (changes.empty()) return "none\n";
  std::ostringstream md;
  md << "| claim | change | before | after | detail |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& c : changes)
    md << "| " << md_cell(c.id) << " | **" << c.kind << "** | " << md_cell(c.before) << " | " << md_cell(c.after)
       << " | " << md_cell(c.detail) << " |\n";
  return md.str();
}

std::string changes_lines(const std::vector<Change>& changes) {
  std::ostringstream s;
  for (const auto& c : changes) {
    char head[64];
    std::snprintf(head, sizeof head, "CHANGED %-8s %-18s ", c.id.c_str(), c.kind.c_str());
    s << head << c.before << " -> " << c.after << (c.detail.empty() ? "" : "  (" + c.detail + ")") << "\n";
  }
  return s.str();
}

nlohmann::json changes_json(const std::vector<Change>& changes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : changes)
    out.push_back({{"id", c.id}, {"kind", c.kind}, {"before", c.before}, {"after", c.after}, {"detail", c.detail}});
  return out;
}

nlohmann::json default_tolerance() {
  // cpu: exact. On the reference kernels (util/platform.h) the committed fixtures give the same bits,
  //   so every measured value repeats exactly; any difference is a change of code or data.
  // cpu-unpinned: where claimcheck cannot pin those kernels (no AVX2, CLAIMCHECK_NATIVE_KERNELS=1),
  //   float sums run in another order: on an AVX-512 Xeon 11 of 44 values moved in the 8th significant
  //   digit (relative < 1e-7) while accuracies stayed exact. 1e-6 admits that with a margin of ten.
  // cuda: accuracies agree to the sequence with the CPU (reports/perf.md); other values come from
  //   GPU reductions, whose rounding differs more (float32, another order and fused kernels). 1e-4 is
  //   a first bound, not yet measured per kind: the GPU job's diff will show the real spread.
  return {{"cpu", {{"scalar_rel", 0.0}, {"scalar_abs", 0.0}}},
          {"cpu-unpinned", {{"scalar_rel", 1e-6}, {"scalar_abs", 1e-9}}},
          {"cuda", {{"scalar_rel", 1e-4}, {"scalar_abs", 1e-7}}}};
}

namespace {

// One row per seed: a second row for a seed would decide the comparison in the first one's place.
void check_seed_rows(const std::string& path, const std::string& what, const nlohmann::json& entry) {
  if (!entry.is_object() || !entry.contains("seeds")) return;
  if (!entry["seeds"].is_array()) throw Error(path + ": claim \"" + what + "\": \"seeds\" must be a list");
  std::set<int64_t> seen;
  for (const auto& row : entry["seeds"]) {
    if (!row.is_object() || !row.contains("seed") || !row["seed"].is_number_integer())
      throw Error(path + ": claim \"" + what + "\": a per-seed row without an integer \"seed\"");
    if (!seen.insert(row["seed"].get<int64_t>()).second)
      throw Error(path + ": claim \"" + what + "\": seed " + row["seed"].dump() + " has two rows");
  }
}

}  // namespace

nlohmann::json read_outcomes(const std::string& path) {
  nlohmann::json j = parse_json(read_regular_file(path, kMaxJsonBytes, "report or baseline"), path, false);
  if (j.is_discarded()) throw Error(path + ": not valid JSON");
  if (!j.is_object() || !j.contains("claims") || !j["claims"].is_array())
    throw Error(path + ": has no \"claims\" list (expected a report.json or a baseline file)");
  // A baseline decides whether CI is green: every field it is read for is checked, so that a typo
  // cannot hide a moved value (a huge or negative tolerance, a claim listed twice, a verdict
  // nobody writes).
  if (!j.contains("format"))
    throw Error(path + ": no \"format\" (a report.json says \"" + std::string(kReportFormat) + "\", a baseline \"" +
                kBaselineFormat + "\"; claimcheck verify --write-baseline writes one)");
  const auto& f = j["format"];
  if (!f.is_string() || (f != kBaselineFormat && f != kReportFormat))
    throw Error(path + ": unknown \"format\" " + f.dump() + " (this claimcheck reads " + kBaselineFormat + " and " +
                kReportFormat + ")");
  if (f == kBaselineFormat && !j.contains("tolerance"))
    throw Error(path +
                ": a baseline without \"tolerance\" (how far a scalar may move on each device; "
                "claimcheck verify --write-baseline writes it)");
  static const std::set<std::string> kVerdicts = {"PASS", "FAIL", "INCONCLUSIVE", "SKIPPED", "INVALID", "ERROR"};
  std::set<std::string> ids;
  for (const auto& c : j["claims"]) {
    if (!c.is_object() || !c.contains("id") || !c["id"].is_string() || !c.contains("verdict") ||
        !c["verdict"].is_string())
      throw Error(path + ": a claim entry without a string \"id\" and \"verdict\"");
    if (!ids.insert(c["id"].get<std::string>()).second)
      throw Error(path + ": claim \"" + c["id"].get<std::string>() + "\" is listed twice");
    if (!kVerdicts.count(c["verdict"].get<std::string>()))
      throw Error(path + ": claim \"" + c["id"].get<std::string>() + "\" has an unknown verdict \"" +
                  c["verdict"].get<std::string>() + "\"");
    check_seed_rows(path, c["id"].get<std::string>(), c);
    if (c.contains("controls") && c["controls"].is_array())
      for (const auto& ctl : c["controls"]) check_seed_rows(path, c["id"].get<std::string>() + " (a control)", ctl);
  }
  if (j.contains("tolerance")) {
    const auto& all = j["tolerance"];
    if (!all.is_object()) throw Error(path + ": \"tolerance\" must be an object of devices");
    for (const auto& [device, one] : all.items()) {
      if (!one.is_object()) throw Error(path + ": tolerance." + device + " must be an object");
      for (const auto& [key, v] : one.items()) {
        const double cap = key == "scalar_rel" ? kMaxToleranceRel : key == "scalar_abs" ? kMaxToleranceAbs : -1;
        if (cap < 0) throw Error(path + ": tolerance." + device + "." + key + ": unknown key (scalar_rel, scalar_abs)");
        if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= cap))
          throw Error(path + ": tolerance." + device + "." + key + " = " + v.dump() + ": must be a number in [0, " +
                      nlohmann::json(cap).dump() + "] (a larger one would hide a moved value)");
      }
    }
  }
  // A baseline's claim files are relative to its own folder (with_files_relative_to): resolved here,
  // so that whether a file still exists does not depend on where claimcheck runs.
  if (j.value("format", "") == kBaselineFormat) {
    const std::filesystem::path dir = std::filesystem::absolute(path).parent_path();
    for (auto& c : j["claims"])
      if (c.contains("file") && c["file"].is_string() &&
          std::filesystem::path(c["file"].get<std::string>()).is_relative())
        c["file"] = (dir / c["file"].get<std::string>()).lexically_normal().string();
  }
  return j;
}

nlohmann::json with_files_relative_to(nlohmann::json baseline, const std::string& baseline_path) {
  const std::filesystem::path dir = std::filesystem::absolute(baseline_path).parent_path().lexically_normal();
  for (auto& c : baseline["claims"])
    if (c.contains("file") && c["file"].is_string())
      c["file"] =
          std::filesystem::absolute(c["file"].get<std::string>()).lexically_normal().lexically_relative(dir).string();
  return baseline;
}

}  // namespace cc::report
