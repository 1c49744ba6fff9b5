#include "claims/claim.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "analysis/intervention.h"
#include "claims/folder_defaults.h"
#include "util/error.h"
#include "util/file_io.h"

namespace cc::claims {
namespace fs = std::filesystem;

std::string comparison_symbol(Comparison c) {
  switch (c) {
    case Comparison::Greater:
      return ">";
    case Comparison::GreaterEq:
      return ">=";
    case Comparison::Less:
      return "<";
    case Comparison::Within:
      return "within";
    default:
      return "<=";
  }
}

std::string Rule::describe() const {
  std::ostringstream s;
  s << (seeds == SeedRule::Mean     ? "mean over seeds"
        : seeds == SeedRule::Median ? "median over seeds"
                                    : "each seed")
    << " " << comparison_symbol(op) << " ";
  if (op == Comparison::Within)
    s << "[" << threshold << ", " << high << "]";
  else
    s << threshold;
  if (seeds == SeedRule::Fraction) s << ", on a share >= " << fraction << " of seeds (Wilson 95% CI)";
  if (min_seeds > 1) s << " (>= " << min_seeds << " seeds)";
  if (draws > 1) s << " on each of " << draws << " evaluation draws";
  return s.str();
}

namespace {

// Validation by character loops, not std::regex: libstdc++'s regex recurses once per character
// and overflows the stack on a long enough string (a 5 MB id crashed it).
bool is_claim_id(const std::string& s) {
  if (s.empty() || s.size() > 128 || !std::isalnum(static_cast<unsigned char>(s[0]))) return false;
  for (char ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '.' && ch != '-') return false;
  return true;
}

// NNNN.NNNN[N]vN, e.g. 2605.31497v1
bool is_arxiv_id(const std::string& s) {
  auto digits = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i)
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    return to > from;
  };
  const size_t dot = s.find('.'), v = s.find('v');
  if (s.size() > 32 || dot != 4 || v == std::string::npos || v < dot) return false;
  const size_t mid = v - dot - 1;
  return digits(0, 4) && (mid == 4 || mid == 5) && digits(dot + 1, v) && digits(v + 1, s.size());
}

}  // namespace

analysis::Statistic Claim::statistic() const {
  if (params.is_object() && params.value("effect", "") == "drop") return analysis::Statistic::Scalar;
  return measurement->statistic;
}

std::string Control::text() const {
  if (params) return "params " + params->dump();
  if (intervene) return "intervene " + intervene->dump() + ", " + stage.text();
  return run.empty() ? stage.text() : "run " + run + ", " + stage.text();
}

namespace {

// The measure block's keys the engine reads, not the kind: an intervention, its effect and the edits
// a drop is measured from. A reading's variant carries the committed ones and may not vary them.
constexpr const char* kEngineMeasureKeys[] = {"intervene", "effect", "reference"};

// A claim file that is a symbolic link is read only where it leads into the folder of the runs file it
// is read with (the paper's folder): a link out of the tree (to /etc/passwd, say) is not read, so no
// fragment of another file reaches a report.
void refuse_link_out_of_paper(const std::string& path, const catalogue::Runs& runs) {
  std::error_code ec;
  if (!fs::is_symlink(path, ec) || runs.path().empty()) return;
  const fs::path target = fs::weakly_canonical(path, ec);
  if (ec || !fs::is_regular_file(target, ec)) return;  // a loop, a device, a FIFO: opening it names the problem
  const fs::path paper = fs::weakly_canonical(fs::absolute(runs.path()).parent_path(), ec);
  if (!lies_within(target.string(), paper.string()))
    throw Error(path + ": a symbolic link to " + target.string() + ", outside the paper's folder " + paper.string() +
                ": not read (link to a file inside the paper's folder, or copy it there)");
}

}  // namespace

Claim load_claim(const std::string& path, const analysis::Registry& registry, const catalogue::Runs& runs) {
  refuse_link_out_of_paper(path, runs);
  YamlDoc doc = load_yaml_file(path);
  apply_folder_defaults(doc);
  return load_claim_doc(doc, registry, runs);
}

Claim load_claim_string(const std::string& text, const std::string& path, const analysis::Registry& registry,
                        const catalogue::Runs& runs) {
  YamlDoc doc = load_yaml_string(text, path);
  apply_folder_defaults(doc);
  return load_claim_doc(doc, registry, runs);
}

namespace {

// id, title, paper: {arxiv, section, figure, quote}, reported: {value, text}.
void read_paper(ObjectReader& r, Claim& c) {
  c.id = r.string("id");
  if (!is_claim_id(c.id))
    r.fail("id", "'" + c.id.substr(0, 64) +
                     (c.id.size() > 64 ? "...' (" + std::to_string(c.id.size()) + " characters)" : "'") +
                     " must be letters, digits, '_', '.', '-' (at most 128, the first a letter or digit: it names a "
                     "ctest test)");
  c.title = r.string("title");

  ObjectReader paper = r.object("paper");
  c.paper.arxiv = paper.string("arxiv");
  if (!is_arxiv_id(c.paper.arxiv))
    paper.fail("arxiv", "'" + c.paper.arxiv + "' must be an arXiv id with its version, e.g. 1706.03762v7");
  c.paper.section = paper.string("section");
  c.paper.figure = paper.string("figure", "");
  c.paper.quote = paper.string("quote");
  paper.finish();

  ObjectReader reported = r.object("reported");
  if (reported.has("value"))
    c.reported = reported.number("value");
  else
    reported.raw("value");  // present but null is allowed: the paper gives no number
  c.reported_text = reported.string("text");
  reported.finish();
}

// subject: {run | sweep | theory, checkpoint, seeds}; returns the run's spec (nullptr for a sweep or a
// theory model).
const catalogue::RunSpec* read_subject(ObjectReader subject, const catalogue::Runs& runs, Claim& c) {
  const catalogue::RunSpec* spec = nullptr;
  const std::vector<uint64_t>* allowed_seeds = nullptr;
  const int subjects = subject.has("sweep") + subject.has("run") + subject.has("theory");
  if (subjects > 1)
    subject.fail(subject.has("theory") ? "theory" : "run",
                 "a claim's subject is one of: a run, a sweep, a theory model");
  if (subject.has("theory")) {
    c.subject = {analysis::Subject::Theory, subject.string("theory")};
    c.stage = Stage::theory();
  } else if (subject.has("sweep")) {
    c.subject = {analysis::Subject::Sweep, subject.string("sweep")};
    const catalogue::SweepSpec* sweep = runs.find_sweep(c.subject.name);
    if (!sweep) {
      std::string known;
      for (const auto& s : runs.sweeps()) known += (known.empty() ? "" : ", ") + s.name;
      subject.fail("sweep", "unknown sweep '" + c.subject.name +
                                "' (runs.yaml defines: " + (known.empty() ? "none" : known) + ")");
    }
    c.stage = subject.one_of("checkpoint", {"final", "init"}, "final") == "init" ? Stage::init() : Stage::final_step();
    allowed_seeds = &sweep->seeds;
  } else {
    c.subject = {analysis::Subject::Checkpoint, subject.string("run")};
    spec = runs.find(c.subject.name);
    if (!spec) {
      std::string known;
      for (const auto& n : runs.names()) known += (known.empty() ? "" : ", ") + n;
      subject.fail("run", "unknown run '" + c.subject.name + "' (runs.yaml defines: " + known + ")");
    }
    const std::string checkpoint = subject.raw("checkpoint").is_number_integer()
                                       ? std::to_string(subject.integer("checkpoint"))
                                       : subject.string("checkpoint");
    try {
      c.stage = Stage::parse(checkpoint, *spec);
    } catch (const Error& e) {
      subject.fail("checkpoint", e.what());
    }
    allowed_seeds = &spec->seeds;
  }
  const std::string owner = std::string(c.subject.field()) + " '" + c.subject.name + "'";
  if (subject.has("seeds") && subject.raw("seeds").is_string()) {
    if (subject.string("seeds") != "all") subject.fail("seeds", "expected 'all' or a list of seeds");
    if (c.subject.is_theory()) subject.fail("seeds", "a theory claim lists its Monte Carlo seeds");
  } else {
    // An empty list would silently mean every seed, and a repeated seed would count twice towards
    // min_seeds and the mean: both are errors, not readings.
    if (subject.has("seeds") && subject.raw("seeds").is_array() && subject.raw("seeds").empty())
      subject.fail("seeds", "an empty list; omit the key (or write 'all') to use every seed of the " + owner);
    for (int64_t s : subject.integers("seeds", {})) {
      if (s < 0) subject.fail("seeds", "a seed is a non-negative integer");
      // A theory claim's seeds are Monte Carlo repetitions, each a full computation (the kinds cap
      // one seed's work): eight bound the claim's.
      if (c.subject.is_theory() && c.seeds.size() == 8)
        subject.fail("seeds", "at most 8 Monte Carlo seeds (each repeats the whole computation)");
      if (std::find(c.seeds.begin(), c.seeds.end(), static_cast<uint64_t>(s)) != c.seeds.end())
        subject.fail("seeds", "seed " + std::to_string(s) + " is listed twice");
      if (!c.subject.is_theory() &&
          std::find(allowed_seeds->begin(), allowed_seeds->end(), static_cast<uint64_t>(s)) == allowed_seeds->end())
        subject.fail("seeds", "seed " + std::to_string(s) + " is not a seed of " + owner);
      c.seeds.push_back(static_cast<uint64_t>(s));
    }
  }
  subject.finish();
  return spec;
}

// `intervene:` of a measure block or a control (analysis/intervention.h): for a kind that reads the model
// through its forwards only, checked against the subject run's model before anything runs.
nlohmann::json read_interventions(ObjectReader& r, const Claim& c, const catalogue::RunSpec* spec,
                                  const std::string& key = "intervene") {
  if (!c.measurement->intervenable || c.measurement->needs_history)
    r.fail(key, "kind '" + c.kind + "' reads more of the model than its forwards (its weights, or a " +
                    "history): an intervention cannot reach all it reads");
  nlohmann::json edits = analysis::parse_interventions(r, key);
  if (spec) {
    try {
      analysis::check_interventions(edits, spec->config.model);
    } catch (const Error& e) {
      r.fail(key, e.what());
    }
  }
  return edits;
}

// measure: {kind, the kind's parameters, intervene?}, checked against the subject.
void read_measure(ObjectReader& measure, const analysis::Registry& registry, const catalogue::RunSpec* spec, Claim& c) {
  c.kind = measure.string("kind");
  c.measurement = registry.find(c.kind);
  if (!c.measurement) measure.fail("kind", registry.unknown_message(c.kind));
  nlohmann::json edits;
  if (measure.has("intervene")) edits = read_interventions(measure, c, spec);
  // effect: the intervened measurement itself, or its drop from the clean one (a proportion kind's).
  std::string effect;
  if (measure.has("effect")) {
    if (edits.is_null()) measure.fail("effect", "an effect is of an intervention: give `intervene:` with it");
    effect = measure.one_of("effect", {"intervened", "drop"});
    if (effect == "drop" && c.measurement->statistic != analysis::Statistic::Proportion)
      measure.fail("effect", "'drop' is the difference of two proportions; kind '" + c.kind + "' gives a scalar");
  }
  // reference: the drop is from the model under these edits instead of the clean one (what the named
  // edit costs beyond a matched one, e.g. a random subspace of the same rank).
  nlohmann::json reference;
  if (measure.has("reference")) {
    if (effect != "drop") measure.fail("reference", "a reference is what a drop is measured from: give `effect: drop`");
    reference = read_interventions(measure, c, spec, "reference");
  }
  c.params = c.measurement->parse_params(measure);
  if (!edits.is_null()) {
    c.params["intervene"] = edits;
    c.params["effect"] = effect.empty() ? "intervened" : effect;
  }
  if (!reference.is_null()) c.params["reference"] = reference;
  const analysis::Subject wants = c.measurement->subject;
  const analysis::Subject has = c.subject.kind;
  auto subject_name = [](analysis::Subject s) {
    return s == analysis::Subject::Theory  ? std::string("theory model (subject.theory)")
           : s == analysis::Subject::Sweep ? std::string("sweep (subject.sweep)")
                                           : std::string("run's checkpoint (subject.run)");
  };
  if (wants != has)
    measure.fail("kind", "kind '" + c.kind + "' measures a " + subject_name(wants) + ", but the subject is a " +
                             subject_name(has));
  if (has == analysis::Subject::Theory && c.subject.name != c.measurement->theory)
    measure.fail("kind", "kind '" + c.kind + "' computes on the theory model '" + c.measurement->theory +
                             "', but the subject names '" + c.subject.name + "'");
  if (has == analysis::Subject::Theory && c.seeds.empty()) c.seeds = {0};
}

// expect: {op, threshold, seeds, fraction, min_seeds, draws}.
void read_rule(ObjectReader expect, Claim& c) {
  const std::string op = expect.one_of("op", {">", ">=", "<", "<=", "within"}, ">");
  c.rule.op = op == ">"    ? Comparison::Greater
              : op == ">=" ? Comparison::GreaterEq
              : op == "<"  ? Comparison::Less
              : op == "<=" ? Comparison::LessEq
                           : Comparison::Within;
  const bool proportion = c.statistic() == analysis::Statistic::Proportion;
  if (c.rule.op == Comparison::Within) {  // threshold: [low, high]
    const nlohmann::json& range = expect.raw("threshold");
    if (!range.is_array() || range.size() != 2 || !range[0].is_number() || !range[1].is_number())
      expect.fail("threshold", "with op 'within', expected [low, high]");
    c.rule.threshold = range[0].get<double>();
    c.rule.high = range[1].get<double>();
    if (!std::isfinite(c.rule.threshold) || !std::isfinite(c.rule.high) || c.rule.threshold > c.rule.high)
      expect.fail("threshold", "expected finite low <= high");
    if (proportion && (c.rule.threshold < 0 || c.rule.high > 1))
      expect.fail("threshold", "must lie in [0, 1] for a proportion (kind '" + c.kind + "')");
  } else {
    c.rule.threshold = expect.number("threshold");
    if (!std::isfinite(c.rule.threshold)) expect.fail("threshold", "must be a finite number");
    if (proportion && (c.rule.threshold < 0 || c.rule.threshold > 1))
      expect.fail("threshold", "must be in [0, 1] for a proportion (kind '" + c.kind + "')");
  }
  const std::string seeds_rule = expect.one_of("seeds", {"each", "mean", "median", "fraction"}, "each");
  c.rule.seeds = seeds_rule == "each"     ? SeedRule::Each
                 : seeds_rule == "mean"   ? SeedRule::Mean
                 : seeds_rule == "median" ? SeedRule::Median
                                          : SeedRule::Fraction;
  if (c.rule.seeds == SeedRule::Fraction) {
    c.rule.fraction = expect.number("fraction");
    if (!(c.rule.fraction > 0 && c.rule.fraction <= 1)) expect.fail("fraction", "must be in (0, 1]");
  } else if (expect.has("fraction")) {
    expect.fail("fraction", "only with seeds: fraction");
  }
  const int64_t min_seeds = expect.integer_in("min_seeds", 1, 1, 1000);
  c.rule.min_seeds = static_cast<int>(min_seeds);
  c.rule.draws = static_cast<int>(expect.integer_in("draws", 1, 1, kMaxDraws));
  // Another draw is the same measurement with the next eval_seed: a kind that draws no evaluation set
  // has no other draw to take.
  if (c.rule.draws > 1 && !c.params.contains("eval_seed"))
    expect.fail("draws", "the measurement '" + c.kind + "' draws no evaluation set (it has no eval_seed)");
  expect.finish();
}

// The kind's parameters for the claim's measure block with some values replaced (`merged`: the block as
// written, replacements made), read by the kind's own parse_params: a theory control's overrides, a
// reading's other value. Its errors name the measure block's lines.
nlohmann::json parse_measure_as(const YamlDoc& doc, const nlohmann::json& merged, const ObjectReader& measure,
                                const Claim& c) {
  ObjectReader variant(doc, merged, measure.pointer());
  variant.string("kind");
  for (const char* key : kEngineMeasureKeys)
    if (variant.has(key)) variant.raw(key);
  return c.measurement->parse_params(variant);
}

// One control: {checkpoint} | {run, checkpoint} | {params} (theory) | {intervene, checkpoint?}.
Control read_one_control(ObjectReader control, const YamlDoc& doc, const ObjectReader& measure,
                         const catalogue::Runs& runs, const catalogue::RunSpec* spec, const Claim& c) {
  Control out;
  if (c.subject.is_theory()) {
    // A theory model has no untrained checkpoint: its control is the same computation with
    // the mechanism removed, e.g. {phi1: scrambled}. The overrides go through the kind's own
    // parameter check (an error there points at the measure block).
    ObjectReader overrides = control.object("params");
    nlohmann::json merged = measure.json();
    for (const auto& [k, v] : overrides.json().items()) merged[k] = v;
    out.params = parse_measure_as(doc, merged, measure, c);
    out.stage = Stage::theory_control();
    for (const auto& [k, v] : overrides.json().items()) overrides.raw(k);
  } else {
    // The claim's measurement with other edits (a matched component: the same intervention where the claim
    // says it does not matter), on the claim's own subject and, unless it names one, its checkpoint.
    if (control.has("intervene")) {
      if (control.has("run")) control.fail("intervene", "an intervention control is on the claim's own run");
      out.intervene = read_interventions(control, c, spec);
      if (!control.has("checkpoint")) {
        out.stage = c.stage;
        control.finish();
        return out;
      }
    }
    if (control.has("run")) {
      if (!c.subject.is_run()) control.fail("run", "only a run claim's control may name another run");
      out.run = control.string("run");
      spec = runs.find(out.run);
      if (!spec) control.fail("run", "no run '" + out.run + "' in runs.yaml");
      if (out.run == c.subject.name) control.fail("run", "names the claim's own run: give only its checkpoint");
    }
    // A step may be written as a number (checkpoint: 2000) or a string ("2000"), as the schema allows.
    const std::string checkpoint = control.has("checkpoint") && control.json()["checkpoint"].is_number_integer()
                                       ? std::to_string(control.raw("checkpoint").get<int64_t>())
                                       : control.string("checkpoint");
    if (c.subject.is_sweep()) {
      if (checkpoint != "init") control.fail("checkpoint", "a sweep claim's control is 'init' (step 0 of every point)");
      out.stage = Stage::init();
    } else {
      try {
        out.stage = Stage::parse(checkpoint, *spec);
      } catch (const Error& e) {
        control.fail("checkpoint", e.what());
      }
    }
  }
  control.finish();
  return out;
}

// control: one control, a list of them, or {none: why}.
constexpr size_t kMaxControls = 16;  // the most a committed claim names: 3
void read_controls(ObjectReader& r, const YamlDoc& doc, const ObjectReader& measure, const catalogue::Runs& runs,
                   const catalogue::RunSpec* spec, Claim& c) {
  const nlohmann::json& value = r.raw("control");
  if (value.is_array()) {
    if (value.empty()) r.fail("control", "an empty list: name at least one control, or {none: why}");
    // Each control repeats the claim's measurement on every seed: 1 000 of them ran past 300 s at 4.1 GB.
    if (value.size() > kMaxControls)
      r.fail("control", std::to_string(value.size()) + " controls; at most " + std::to_string(kMaxControls) +
                            " (each repeats the whole measurement)");
    for (size_t i = 0; i < value.size(); ++i) {
      const std::string pointer = r.pointer() + "/control/" + std::to_string(i);
      ObjectReader one(doc, value[i], pointer);
      if (one.has("none")) one.fail("none", "'none' stands alone, not in a list of controls");
      c.controls.push_back(read_one_control(one, doc, measure, runs, spec, c));
    }
    return;
  }
  ObjectReader control = r.object("control");
  if (control.has("none")) {
    c.control_none_reason = control.prose("none");
    control.finish();
    return;
  }
  c.controls.push_back(read_one_control(control, doc, measure, runs, spec, c));
}

// The value at a dotted path of the measure block ("denominator.within_of_last"), or null where the claim
// file does not write it.
nlohmann::json* value_at(nlohmann::json& measure, const std::string& at) {
  nlohmann::json* node = &measure;
  std::stringstream parts(at);
  for (std::string key; std::getline(parts, key, '.');) {
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
  }
  return node;
}

// The rule's threshold as a free constant (`at: expect.threshold`, also read by the verifier): where the
// paper's words name no number ("fail to reliably predict"), the numbers a careful reading could take
// instead. Judged on the same measurements (nothing is measured again), so it is the one constant a sweep
// claim may declare. A value has the committed threshold's shape: a number, or [low, high] for `within`.

nlohmann::json threshold_json(const Rule& rule) {
  if (rule.op == Comparison::Within) return nlohmann::json::array({rule.threshold, rule.high});
  return rule.threshold;
}

void check_threshold_value(ObjectReader& one, const nlohmann::json& v, const Claim& c) {
  const bool within = c.rule.op == Comparison::Within;
  const bool shaped = within ? v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number() : v.is_number();
  if (!shaped)
    one.fail("values", v.dump() + " is not a threshold of this rule (" + (within ? "[low, high]" : "a number") + ")");
  const double low = within ? v[0].get<double>() : v.get<double>(), high = within ? v[1].get<double>() : low;
  if (!std::isfinite(low) || !std::isfinite(high) || low > high)
    one.fail("values", v.dump() + ": expected finite numbers, low <= high");
  if (c.statistic() == analysis::Statistic::Proportion && (low < 0 || high > 1))
    one.fail("values", v.dump() + " must lie in [0, 1] for a proportion (kind '" + c.kind + "')");
}

Sensitivity read_threshold_reading(ObjectReader& one, const Claim& c) {
  Sensitivity s;
  s.at = Sensitivity::kThreshold;
  s.committed = threshold_json(c.rule);
  const nlohmann::json& values = one.raw("values");
  if (!values.is_array() || values.empty() || values.size() > kMaxSensitivityValues)
    one.fail("values", "expected a list of 1 to " + std::to_string(kMaxSensitivityValues) + " other thresholds");
  for (const nlohmann::json& v : values) {
    check_threshold_value(one, v, c);
    if (v == s.committed) one.fail("values", v.dump() + " is the committed threshold; list only the others");
    if (std::find(s.values.begin(), s.values.end(), v) != s.values.end())
      one.fail("values", v.dump() + " is listed twice");
    s.values.push_back(v);
  }
  s.why = one.prose("why");
  one.finish();
  return s;
}

// One free constant: {at, values, why}. Each value goes through the kind's own parameter check, as the
// committed one did; an error there names the sensitivity's line, not the measure block's.
Sensitivity read_one_sensitivity(ObjectReader one, const YamlDoc& doc, const ObjectReader& measure, const Claim& c) {
  if (one.string("at") == Sensitivity::kThreshold) return read_threshold_reading(one, c);
  if (c.subject.is_sweep())
    one.fail("at", "a sweep claim reads collected summaries; vary its measurement on a run claim (its " +
                       std::string(Sensitivity::kThreshold) + " may be declared)");
  Sensitivity s;
  s.at = one.string("at");
  const std::string head = s.at.substr(0, s.at.find('.'));
  if (head == "kind" ||
      std::find(std::begin(kEngineMeasureKeys), std::end(kEngineMeasureKeys), head) != std::end(kEngineMeasureKeys))
    one.fail("at", "'" + s.at + "' is not a constant of the reading: vary a parameter of the kind");
  nlohmann::json merged = measure.json();
  const nlohmann::json* committed = value_at(merged, s.at);
  if (!committed || committed->is_object() || committed->is_array() || committed->is_null())
    one.fail("at", "the measure block writes no single value at '" + s.at +
                       "': the committed constant must be written in the claim, beside its alternatives");
  s.committed = *committed;
  const nlohmann::json& values = one.raw("values");
  if (!values.is_array() || values.empty() || values.size() > kMaxSensitivityValues)
    one.fail("values", "expected a list of 1 to " + std::to_string(kMaxSensitivityValues) + " other values of '" +
                           s.at + "' (each is a full measurement of every seed)");
  for (const nlohmann::json& v : values) {
    if (v == s.committed) one.fail("values", v.dump() + " is the committed value; list only the others");
    if (std::find(s.values.begin(), s.values.end(), v) != s.values.end())
      one.fail("values", v.dump() + " is listed twice");
    if (v.is_number() != s.committed.is_number() || v.is_string() != s.committed.is_string() ||
        v.is_boolean() != s.committed.is_boolean())
      one.fail("values", v.dump() + " is not of the committed value's type (" + s.committed.dump() + ")");
    *value_at(merged, s.at) = v;
    try {
      nlohmann::json params = parse_measure_as(doc, merged, measure, c);
      for (const char* key : kEngineMeasureKeys)
        if (c.params.contains(key)) params[key] = c.params[key];
      s.params.push_back(std::move(params));
    } catch (const Error& e) {
      one.fail("values", "at " + s.at + " = " + v.dump() + ": " + e.what());
    }
    s.values.push_back(v);
  }
  s.why = one.prose("why");
  one.finish();
  return s;
}

// sensitivity: a list of the reading's free constants.
void read_sensitivity(ObjectReader& r, const YamlDoc& doc, const ObjectReader& measure, Claim& c) {
  if (!r.has("sensitivity")) return;
  const nlohmann::json& list = r.raw("sensitivity");
  if (!list.is_array() || list.empty() || list.size() > kMaxSensitivityConstants)
    r.fail("sensitivity", "expected a list of 1 to " + std::to_string(kMaxSensitivityConstants) +
                              " constants, each {at, values, why}");
  for (size_t i = 0; i < list.size(); ++i) {
    ObjectReader one(doc, list[i], r.pointer() + "/sensitivity/" + std::to_string(i));
    c.sensitivity.push_back(read_one_sensitivity(one, doc, measure, c));
    for (size_t j = 0; j + 1 < c.sensitivity.size(); ++j)
      if (c.sensitivity[j].at == c.sensitivity.back().at) one.fail("at", "'" + c.sensitivity[j].at + "' twice");
  }
}

}  // namespace

Claim load_claim_doc(const YamlDoc& doc, const analysis::Registry& registry, const catalogue::Runs& runs) {
  ObjectReader r(doc, "");
  Claim c;
  c.file = doc.file;
  c.section = fs::path(doc.file).parent_path().filename().string();
  read_paper(r, c);
  const catalogue::RunSpec* spec = read_subject(r.object("subject"), runs, c);
  ObjectReader measure = r.object("measure");
  read_measure(measure, registry, spec, c);
  read_rule(r.object("expect"), c);
  read_controls(r, doc, measure, runs, spec, c);
  read_sensitivity(r, doc, measure, c);
  const std::string tier = r.one_of("tier", {"fixture", "cpu", "gpu"}, "fixture");
  c.tier = catalogue::parse_tier(tier);
  c.notes = r.prose("notes", "");
  c.positive_control = r.one_of("role", {"claim", "positive_control"}, "claim") == "positive_control";
  c.companion_of = r.strings("companion_of", {});
  for (const auto& id : c.companion_of)
    if (id.empty() || !std::isalnum(static_cast<unsigned char>(id[0])) || id == c.id)
      r.fail("companion_of", "'" + id + "' is no other claim's id (ids start with a letter or digit)");
  r.finish();
  return c;
}

std::vector<std::string> find_claim_files(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  auto is_claim = [](const fs::path& p) {
    // runs.yaml (the runs), paper.yaml (the paper's facts) and defaults.yaml (a folder's defaults,
    // folder_defaults.h) are data, not claims.
    return (p.extension() == ".yaml" || p.extension() == ".yml") && p.filename() != "runs.yaml" &&
           p.filename() != "paper.yaml" && p.filename() != kDefaultsFile;
  };
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      // Every entry named like a claim that is not a folder is listed, whatever it is (a FIFO, a device,
      // a dangling link, a link loop): reading it is an ERROR naming it, never a silent skip. Folder
      // links are not followed (a loop cannot trap the walk); an unreadable folder is an error.
      fs::recursive_directory_iterator it(p, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        std::error_code type_ec;
        if (!it->is_directory(type_ec) && is_claim(it->path())) out.push_back(it->path().string());
      }
      if (ec) throw Error(p + ": cannot list the claim folder (" + ec.message() + ")");
    } else if (path_present(p)) {
      out.push_back(p);
    } else {
      throw Error(p + ": no such claim file or directory");
    }
  }
  std::sort(out.begin(), out.end());
  // One file named twice (or by two spellings, or as a file and within its folder) is one claim file,
  // not two claims with one id.
  std::set<std::string> seen;
  std::vector<std::string> unique;
  for (const auto& f : out) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(f, ec);
    if (seen.insert(ec ? f : canonical.string()).second) unique.push_back(f);
  }
  return unique;
}

}  // namespace cc::claims
