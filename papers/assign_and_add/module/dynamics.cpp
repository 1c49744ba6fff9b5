// Kinds over a run's training history (§6): the metrics log up to the subject checkpoint and the
// run's checkpoints along the way (RunHistory). Each gives 1 when the paper's account holds for
// the seed and 0 when it does not, with the steps and values behind it in the details; at the
// negative control (the history up to step 0) nothing has been learned and each gives 0.
//   phase_order        D1: the early set reaches its level strictly before every late set, with a
//                      logged plateau where the early set is learned and the first late set is not
//   transition_circuit D2: a circuit measure (any checkpoint kind) is below `low` `lead` steps
//                      before the binding spike and at least `high` at its end
//   late_refinement    D3: the var-restricted set reaches its level after the binding spike, and
//                      over that later window the layer-1 score of '=' on the restricted variables
//                      rises relative to the other variables' (Figure 9a)
// The binding spike: the `window`-step interval with the largest rise of `rise_set` (test_1)
// after `after_set` (test_0) first reaches `after_level`: the paper's "first learns 0-var
// addition, and only later ..." places it after the 0-var phase, and before it test_1 also rises
// by ~0.3 while 0-var addition is being learned (1-var sequences answered from the constant
// operand alone), which is not the binding transition.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "analysis/common.h"
#include "papers/assign_and_add/module/module.h"
#include "analysis/phases.h"
#include "papers/assign_and_add/module/task/eval_sets.h"
#include "papers/assign_and_add/module/task_family.h"

namespace cc::assign_and_add {
using namespace cc::analysis;  // the engine's measurement vocabulary (Registry, Measurement, ...)
namespace {

struct Series {
  std::vector<int64_t> steps;
  std::vector<double> acc;
};

Series series(const RunHistory& h, const std::string& set) {
  Series s;
  for (const auto& rec : h.metrics) {
    if (!rec.contains("acc") || !rec["acc"].contains(set) || !rec["acc"][set].is_number()) continue;
    s.steps.push_back(rec["step"].get<int64_t>());
    s.acc.push_back(rec["acc"][set].get<double>());
  }
  return s;
}

std::optional<double> at_step(const Series& s, int64_t step) {
  auto it = std::find(s.steps.begin(), s.steps.end(), step);
  if (it == s.steps.end()) return std::nullopt;
  return s.acc[static_cast<size_t>(it - s.steps.begin())];
}

// The binding spike's parameters, shared by D2 and D3.
void parse_spike(ObjectReader& r, nlohmann::json& p) {
  p["rise_set"] = r.one_of("rise_set", task::eval_set_names(), "test_1");
  p["after_set"] = r.one_of("after_set", task::eval_set_names(), "test_0");
  p["after_level"] = r.number("after_level", 0.98);
  p["window"] = r.integer_in("window", 500, 1, 100000);
}

struct Spike {
  int64_t start = 0, end = 0;
  double rise = 0;
  int64_t after = 0;  // the step the after_set reached its level
};

// The binding spike, or why there is none.
struct SpikeSearch {
  std::optional<Spike> spike;
  std::string why;
};

SpikeSearch find_spike(const RunHistory& h, const nlohmann::json& p) {
  const Series rise = series(h, p["rise_set"]);
  const auto learned = first_reaching(h.metrics, p["after_set"], p["after_level"].get<double>());
  if (!learned) return {std::nullopt, p["after_set"].get<std::string>() + " never reaches " + p["after_level"].dump()};
  const int64_t window = p["window"];
  std::optional<Spike> best;
  for (size_t i = 0; i < rise.steps.size(); ++i) {
    if (rise.steps[i] < *learned) continue;
    const auto later = at_step(rise, rise.steps[i] + window);
    if (!later) continue;
    const double d = *later - rise.acc[i];
    if (!best || d > best->rise) best = Spike{rise.steps[i], rise.steps[i] + window, d, *learned};
  }
  if (!best)
    return {std::nullopt,
            "no logged " + std::to_string(window) + "-step window after step " + std::to_string(*learned)};
  return {best, ""};
}

// A history that ends at step 0 (the untrained model) has no phases: these kinds cannot compute their
// account there, and say so (analysis::NotComputable) rather than return 0 whatever the code does.
void require_training(const RunHistory& h) {
  if (h.metrics.size() < 2)
    throw NotComputable("the training history ends at step 0: there are no phases of training to read");
}

// 0, "the account does not hold", until the measurement shows it does; n = the logged steps read.
Measurement not_yet_shown(const RunHistory& h) {
  Measurement m;
  m.value = 0;
  m.n = static_cast<int64_t>(h.metrics.size());
  return m;
}

// The checkpoint at or after `step` (or before it, with `down`), among those the run keeps.
int64_t on_grid(const RunHistory& h, int64_t step, bool down) {
  const auto& g = h.checkpoint_steps;
  if (down) {
    auto it = std::upper_bound(g.begin(), g.end(), step);
    return it == g.begin() ? g.front() : *(it - 1);
  }
  auto it = std::lower_bound(g.begin(), g.end(), step);
  return it == g.end() ? g.back() : *it;
}

// ---- D1 ----

nlohmann::json parse_phase_order(ObjectReader r) {
  nlohmann::json p;
  p["early_set"] = r.one_of("early_set", task::eval_set_names(), "test_0");
  p["early_level"] = r.number("early_level", 0.98);
  p["late_sets"] = r.strings("late_sets", {"test_1", "test_2"});
  for (const auto& s : p["late_sets"])
    if (!task::is_eval_set(s.get<std::string>()))
      r.fail("late_sets", "unknown evaluation set '" + s.get<std::string>() + "'");
  if (p["late_sets"].empty()) r.fail("late_sets", "name at least one set");
  p["late_level"] = r.number("late_level", 0.9);
  p["plateau_below"] = r.number("plateau_below", 0.6);
  r.finish();
  return p;
}

Measurement measure_phase_order(const MeasureInput& in) {
  const RunHistory& h = *in.history;
  require_training(h);
  const auto& p = in.params;
  const Series early = series(h, p["early_set"]);
  const auto z = first_reaching(h.metrics, p["early_set"], p["early_level"].get<double>());
  std::optional<int64_t> late;  // every late set has reached the level (the latest of their first steps)
  nlohmann::json un = nlohmann::json::object();
  bool all_late = true;
  for (const auto& s : p["late_sets"]) {
    const auto f = first_reaching(h.metrics, s, p["late_level"].get<double>());
    un["first step " + s.get<std::string>() + " >= " + p["late_level"].dump()] =
        f ? nlohmann::json(*f) : nlohmann::json("never");
    if (!f)
      all_late = false;
    else
      late = std::max(late.value_or(0), *f);
  }
  // The plateau: logged steps with the early set learned and the first late set still below.
  const Series first_late = series(h, p["late_sets"][0]);
  int64_t plateau_first = -1, plateau_logged = 0;
  for (size_t i = 0; i < early.steps.size(); ++i) {
    const auto l = at_step(first_late, early.steps[i]);
    if (early.acc[i] >= p["early_level"].get<double>() && l && *l < p["plateau_below"].get<double>()) {
      if (plateau_first < 0) plateau_first = early.steps[i];
      ++plateau_logged;
    }
  }
  const bool holds = z && all_late && late && *z < *late && plateau_first >= 0;
  Measurement m;
  m.value = holds ? 1 : 0;
  m.n = static_cast<int64_t>(h.metrics.size());
  un["first step " + p["early_set"].get<std::string>() + " >= " + p["early_level"].dump()] =
      z ? nlohmann::json(*z) : nlohmann::json("never");
  un["plateau: logged steps with the early set learned and " + p["late_sets"][0].get<std::string>() + " < " +
     p["plateau_below"].dump()] = plateau_logged;
  un["paper"] = "0-var learned within the first 5000 steps, the variable sets at the spike at 5300-5400 (Figure 2)";
  m.details = {{"zero_var_step", z ? nlohmann::json(*z) : nlohmann::json()},
               {"late_step", late ? nlohmann::json(*late) : nlohmann::json()},
               {"plateau_first", plateau_first},
               {"unthresholded", un}};
  return m;
}

// ---- D2 ----

nlohmann::json parse_transition_circuit(ObjectReader r) {
  nlohmann::json p;
  parse_spike(r, p);
  p["lead"] = r.integer_in("lead", 1000, 0, 100000);
  p["low"] = r.number("low", 0.5);
  p["high"] = r.number("high", 0.9);
  if (p["low"].get<double>() > p["high"].get<double>()) r.fail("low", "must be <= high");
  ObjectReader c = r.object("circuit");
  const std::string kind = c.string("kind");
  if (c.describing()) {  // the circuit's own parameters are its kind's (kinds --json describes each kind)
    p["circuit"] = {{"kind", kind}, {"params", nlohmann::json::object()}};
    return p;
  }
  const MeasurementKind* k = builtin_registry().find(kind);
  if (!k || k->subject != Subject::Checkpoint || k->needs_history)
    c.fail("kind", "'" + kind + "' is not a kind measured on one checkpoint");
  p["circuit"] = {{"kind", kind}, {"params", k->parse_params(c)}};
  r.finish();
  return p;
}

Measurement measure_transition_circuit(const MeasureInput& in) {
  const RunHistory& h = *in.history;
  require_training(h);
  const auto& p = in.params;
  const SpikeSearch found = find_spike(h, p);
  Measurement m = not_yet_shown(h);
  if (!found.spike) {
    m.details = {{"unthresholded", {{"binding spike", "none: " + found.why}}}};
    return m;
  }
  const Spike& spike = *found.spike;
  const MeasurementKind& kind = *builtin_registry().find(p["circuit"]["kind"].get<std::string>());
  // The value is shared through the store (the declared readings, window, lead, ..., read the same
  // checkpoints again); its forwards are not (a trajectory's dozen checkpoints would be kept: +0.6 GB).
  const std::string shared = "assign_and_add.transition_circuit " + p["circuit"].dump();
  auto circuit_at = [&](int64_t step) {
    auto ck = h.checkpoint_at(step);
    return *derived<double>(in.activations, *ck, shared, [&] {
      return Derived<double>{kind.measure(MeasureInput{*ck, p["circuit"]["params"]}).value};
    });
  };
  const int64_t before = on_grid(h, spike.start - p["lead"].get<int64_t>(), true);
  const int64_t after = on_grid(h, spike.end, false);
  const double c_before = circuit_at(before), c_after = circuit_at(after);  // the two the rule needs
  m.value = c_before < p["low"].get<double>() && c_after >= p["high"].get<double>() ? 1 : 0;
  const std::string name = p["circuit"]["kind"];
  nlohmann::json un = {
      {"binding spike (largest " + p["window"].dump() + "-step rise of " + p["rise_set"].get<std::string>() + ")",
       std::to_string(spike.start) + "-" + std::to_string(spike.end)},
      {"paper's spike", "5300-5400"}};
  // The trajectory around the spike, from whatever checkpoints are at hand (report and figure only).
  nlohmann::json xs = nlohmann::json::array(), ys = nlohmann::json::array();
  for (int64_t s : h.checkpoint_steps) {
    if (s < before - 1000 || s > after + 1000) continue;
    try {
      const double v = s == before ? c_before : s == after ? c_after : circuit_at(s);
      xs.push_back(s);
      ys.push_back(v);
      if (s >= before && s <= after) un[name + " at " + std::to_string(s)] = v;
    } catch (const Unavailable&) {
    }
  }
  m.details = {{"spike_start", spike.start},
               {"spike_end", spike.end},
               {"spike_rise", spike.rise},
               {"circuit_before", c_before},
               {"circuit_after", c_after},
               {"unthresholded", un},
               {"figures", nlohmann::json::array(
                               {{{"id", "circuit_" + name},
                                 {"paper_figure", "Figure 8"},
                                 {"type", "lines"},
                                 {"merge_seeds", true},
                                 {"title", name + " around the binding spike"},
                                 {"xlabel", "step"},
                                 {"ylabel", name},
                                 {"hlines", nlohmann::json::array({{{"at", p["low"]}, {"label", "low"}},
                                                                   {{"at", p["high"]}, {"label", "high"}}})},
                                 {"series", nlohmann::json::array({{{"name", name}, {"x", xs}, {"y", ys}}})}}})}};
  return m;
}

// ---- D3 ----

nlohmann::json parse_late_refinement(ObjectReader r) {
  nlohmann::json p;
  parse_spike(r, p);
  p["set"] = r.one_of("set", task::eval_set_names(), "var_restricted_2");
  p["level"] = r.number("level", 0.9);
  r.finish();
  return p;
}

// Figure 9a: [E_= + P_15] QK_1 E_v^T for every variable; the mean over the run's restricted
// variables minus the mean over the others.
double restricted_gap(const train::Checkpoint& ck, nlohmann::json& scores) {
  torch::NoGradGuard no_grad;
  const auto& m = *ck.model;
  const task::TaskConfig t = assign_and_add::task_config(ck.config);
  const task::Vocab vocab(t);
  auto E = m.W_E().detach().cpu().to(torch::kFloat32);
  auto q = E[vocab.equals()] + m.W_pos().detach().cpu().to(torch::kFloat32)[task::kEqualsPos];            // [D]
  auto s = q.matmul(qk_matrix(m, 0)).matmul(E.slice(0, vocab.variable(0), vocab.variable(vocab.v)).t());  // [V]
  std::vector<bool> restricted(static_cast<size_t>(vocab.v), false);
  for (const auto* list : {&t.restricted_first, &t.restricted_second})
    for (const auto& name : *list) restricted[static_cast<size_t>(vocab.variable_index(name))] = true;
  double in = 0, out = 0;
  int n_in = 0, n_out = 0;
  for (int v = 0; v < vocab.v; ++v) {
    const double x = s[v].item<double>();
    scores[vocab.name(vocab.variable(v))] = x;
    if (restricted[static_cast<size_t>(v)])
      in += x, ++n_in;
    else
      out += x, ++n_out;
  }
  if (!n_in || !n_out) throw Error("late_refinement: the run restricts no variable (or all of them)");
  return in / n_in - out / n_out;
}

Measurement measure_late_refinement(const MeasureInput& in) {
  const RunHistory& h = *in.history;
  require_training(h);
  const auto& p = in.params;
  const SpikeSearch found = find_spike(h, p);
  Measurement m = not_yet_shown(h);
  const auto refined = first_reaching(h.metrics, p["set"], p["level"].get<double>());
  nlohmann::json un = {{"paper's refinement spike", "14500-16000"}};
  un["first step " + p["set"].get<std::string>() + " >= " + p["level"].dump()] =
      refined ? nlohmann::json(*refined) : nlohmann::json("never");
  if (!found.spike) {
    un["binding spike"] = "none: " + found.why;
    m.details = {{"unthresholded", un}};
    return m;
  }
  const Spike& spike = *found.spike;
  un["binding spike"] = std::to_string(spike.start) + "-" + std::to_string(spike.end);
  if (!refined || *refined <= spike.end) {
    m.details = {{"unthresholded", un}};
    return m;
  }
  const int64_t from = on_grid(h, spike.end, false), to = on_grid(h, *refined, false);
  nlohmann::json s_from = nlohmann::json::object(), s_to = nlohmann::json::object();
  const double gap_from = restricted_gap(*h.checkpoint_at(from), s_from);
  const double gap_to = restricted_gap(*h.checkpoint_at(to), s_to);
  m.value = gap_to > gap_from ? 1 : 0;
  un["restricted - other variables, '=' layer-1 score at " + std::to_string(from)] = gap_from;
  un["restricted - other variables, '=' layer-1 score at " + std::to_string(to)] = gap_to;
  m.details = {{"refined_step", *refined}, {"gap_from", gap_from}, {"gap_to", gap_to},
               {"scores_from", s_from},    {"scores_to", s_to},    {"unthresholded", un}};
  return m;
}

}  // namespace

void register_dynamics(Registry& r) {
  const std::string spike_doc =
      "rise_set, window: the binding spike is the window-step interval with the largest rise of rise_set (default "
      "test_1, 500)\n"
      "after_set, after_level: ... searched after after_set first reaches after_level (default test_0, 0.98)\n";
  // All three read the run's history and give 0 or 1.
  MeasurementKind order(
      "phase_order", Statistic::Scalar, measure_phase_order,
      "1 if early_set reaches early_level strictly before every late set reaches late_level, with a logged "
      "plateau (early set learned, first late set below plateau_below); else 0");
  order.parse_params = parse_phase_order;
  order.params_doc =
      "early_set, early_level (default test_0, 0.98)\nlate_sets, late_level (default [test_1, test_2], 0.9)\n"
      "plateau_below (default 0.6)";
  MeasurementKind transition(
      "transition_circuit", Statistic::Scalar, measure_transition_circuit,
      "1 if the circuit measure is below low `lead` steps before the binding spike and >= high at its end; else 0");
  transition.parse_params = parse_transition_circuit;
  transition.params_doc =
      spike_doc + "lead (default 1000), low (0.5), high (0.9)\ncircuit: {kind: a checkpoint kind, its parameters}";
  MeasurementKind refinement(
      "late_refinement", Statistic::Scalar, measure_late_refinement,
      "1 if `set` reaches `level` after the binding spike and the '=' layer-1 score of the restricted variables "
      "rises relative to the others' over that later window; else 0");
  refinement.parse_params = parse_late_refinement;
  refinement.params_doc =
      spike_doc + "set, level: the var-restricted set and its level (default var_restricted_2, 0.9)";
  order.needs_history = transition.needs_history = refinement.needs_history = true;
  r.add(std::move(order));
  r.add(std::move(transition));
  r.add(std::move(refinement));
}

}  // namespace cc::assign_and_add
