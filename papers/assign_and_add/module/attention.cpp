// kind `attention_targets`: where a layer's attention goes, on test sequences (§5, Figs 4, 6, 7).
//   query  equals     : the '=' row (position 15)
//          constants  : every assignment constant (a number right after its variable, positions 1..11)
//   target operands   : positions 13 and 14 (layer 1 gathers the operand tokens, Fig 4 left)
//          sources    : where each operand's constant stands: 13/14 for a constant operand, its
//                       assignment for a variable operand (layer 2, Fig 4 right)
//          previous   : position i-1, the constant's own variable (previous-token head, Fig 4 left)
// kind `attention_targets`: fraction of query rows whose top-|target| attended positions are
//   exactly the targets (a proportion: Wilson interval).
// kind `attention_mass`: mean attention mass on the targets (mean with a normal 95 % interval).
#include <torch/torch.h>

#include <algorithm>
#include <set>

#include "analysis/common.h"
#include "papers/assign_and_add/module/examples.h"
#include "papers/assign_and_add/module/module.h"
#include "papers/assign_and_add/module/task_family.h"

namespace cc::assign_and_add {
using namespace cc::analysis;  // the engine's measurement vocabulary (Registry, Measurement, ...)
namespace {

// The paper numbers its two layers from 1 ("layer 1", "layer 2"); blocks are indexed from 0.
int read_paper_layer(ObjectReader& r) {
  const int64_t layer = r.integer_in("layer", 1, 2);  // the paper numbers the layers from 1
  return static_cast<int>(layer - 1);
}

nlohmann::json parse(ObjectReader r, const char* metric) {
  nlohmann::json p;
  p["layer"] = read_paper_layer(r) + 1;
  p["sets"] = read_sets(r, {"test_1", "test_2"});
  p["size"] = read_size(r, 2000);
  p["eval_seed"] = read_eval_seed(r);
  p["query"] = r.one_of("query", {"equals", "constants"}, "equals");
  p["target"] = r.one_of("target", {"operands", "sources", "previous"}, "operands");
  p["report_sets"] = r.strings("report_sets", {});  // measured the same way, reported without a threshold
  for (const auto& s : p["report_sets"])
    if (!task::is_eval_set(s.get<std::string>()))
      r.fail("report_sets", "'" + s.get<std::string>() + "' is not an evaluation set");
  p["metric"] = metric;
  if ((p["query"] == "constants") != (p["target"] == "previous"))
    r.fail("target", "'previous' goes with query 'constants', the others with query 'equals'");
  r.finish();
  return p;
}

struct Scores {
  int64_t hits = 0, rows = 0;
  std::vector<double> masses;
  torch::Tensor mean_row;  // mean '=' row, for the report
  torch::Tensor example;   // the first sequence's pattern [T, T], for Figure 4
  std::vector<std::string> example_tokens;
};

std::string pattern_hook(int layer) { return "blocks." + std::to_string(layer) + ".attn.hook_pattern"; }

Scores score(const MeasureInput& in, const std::vector<std::string>& sets) {
  const auto& p = in.params;
  const int layer = p["layer"].get<int>() - 1;
  const std::string query = p["query"], target = p["target"];
  const task::Vocab vocab(assign_and_add::task_config(in.checkpoint.config));
  const std::string hook = pattern_hook(layer);
  // Layer 2's '=' query reads its row alone, so the forward computes layer 2's queries at '=' only; every
  // other query reads the whole pattern (layer 1's is computed at every position anyway: layer 2 needs it).
  const bool equals_row = layer == 1 && query == "equals";
  const HookRead read = equals_row ? HookRead{hook, task::kEqualsPos} : HookRead{hook};
  const auto acts =
      activations(in.activations, in.checkpoint, sets, p["size"].get<int>(), p["eval_seed"].get<uint64_t>(), {read});
  const auto ex = sample_examples(in.checkpoint, sets, p["size"].get<int>(), p["eval_seed"].get<uint64_t>());
  const auto row = [&](int qpos) -> int64_t { return equals_row ? 0 : qpos; };  // a query's row in `pattern`
  size_t sequences = 0;

  Scores sc;
  sc.mean_row = torch::zeros({task::kSeqLen}, torch::kDouble);
  acts.for_each([&](const model::ActivationCache& cache, size_t begin, size_t end) {
    const std::vector<task::Example> part(ex.begin() + static_cast<std::ptrdiff_t>(begin),
                                          ex.begin() + static_cast<std::ptrdiff_t>(end));
    sequences += part.size();
    auto pattern = cache[read.key()].select(1, 0).to(torch::kCPU, torch::kDouble);  // [B, T, T] or [B, T] (head 0)
    if (equals_row) pattern = pattern.unsqueeze(1);                                 // [B, 1, T]: the '=' row
    pattern = pattern.contiguous();
    if (query == "equals") sc.mean_row += pattern.select(1, row(task::kEqualsPos)).sum(0);
    if (!equals_row && !sc.example.defined() && !part.empty()) {
      sc.example = pattern[0].clone();
      for (int t : part[0].tokens) sc.example_tokens.push_back(vocab.name(t));
    }
    const auto a = pattern.accessor<double, 3>();
    for (size_t b = 0; b < part.size(); ++b) {
      const auto& e = part[b];
      std::vector<std::pair<int, std::set<int>>> queries;  // (query position, target positions)
      if (query == "equals") {
        std::set<int> t = target == "operands" ? std::set<int>{task::kFirstOperandPos, task::kSecondOperandPos}
                                               : std::set<int>{e.source_first, e.source_second};
        queries.emplace_back(task::kEqualsPos, t);
      } else {
        for (int i = 1; i < task::kAssignSlots; ++i)
          if (vocab.is_number(e.tokens[static_cast<size_t>(i)]) &&
              vocab.is_variable(e.tokens[static_cast<size_t>(i - 1)]))
            queries.emplace_back(i, std::set<int>{i - 1});
      }
      for (const auto& query_targets : queries) {
        const int qpos = query_targets.first;  // not a structured binding: lambdas below capture it
        const std::set<int>& targets = query_targets.second;
        std::vector<int> order(static_cast<size_t>(qpos + 1));  // causal: keys 0..qpos
        for (int j = 0; j <= qpos; ++j) order[static_cast<size_t>(j)] = j;
        std::sort(order.begin(), order.end(), [&](int x, int y) {
          return a[static_cast<int64_t>(b)][row(qpos)][x] > a[static_cast<int64_t>(b)][row(qpos)][y];
        });
        const std::set<int> top(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(targets.size()));
        sc.hits += top == targets;
        ++sc.rows;
        double mass = 0;
        for (int t : targets) mass += a[static_cast<int64_t>(b)][row(qpos)][t];
        sc.masses.push_back(mass);
      }
    }
  });
  if (sequences > 0) sc.mean_row /= static_cast<double>(sequences);
  if (equals_row && !ex.empty()) {  // Figure 4's example: the first sequence's whole pattern, a forward of its own
    torch::NoGradGuard no_grad;
    const auto first = acts.sets.front()->tokens.slice(0, 0, 1);
    sc.example = in.checkpoint.model->record(first, {{hook}})[hook][0][0].to(torch::kCPU, torch::kDouble);
    for (int t : ex.front().tokens) sc.example_tokens.push_back(vocab.name(t));
  }
  return sc;
}

double fraction(const Scores& sc) {
  return sc.rows ? static_cast<double>(sc.hits) / static_cast<double>(sc.rows) : 0.0;
}

Measurement measure(const MeasureInput& in) {
  const auto& p = in.params;
  const Scores sc = score(in, p["sets"].get<std::vector<std::string>>());
  Measurement m;
  if (p["metric"] == "mass") {
    m = mean_measurement(sc.masses);
  } else {
    m.n = sc.rows;
    m.successes = sc.hits;
    m.value = fraction(sc);
  }
  m.details["rows"] = sc.rows;
  m.details["top_fraction"] = fraction(sc);
  m.details["mean_mass"] = mean_measurement(sc.masses).value;
  m.details["unthresholded"]["share of rows whose top positions are the targets"] = fraction(sc);
  m.details["unthresholded"]["mean attention mass on the targets"] = m.details["mean_mass"];
  if (p["query"] == "equals")
    m.details["mean_equals_row"] =
        std::vector<double>(sc.mean_row.data_ptr<double>(), sc.mean_row.data_ptr<double>() + task::kSeqLen);
  // Figure 4: the pattern of one fixed example sequence (the first of the seeded sample), and the
  // mean '=' row over the sample.
  const std::string layer_name = "layer " + std::to_string(p["layer"].get<int>());
  if (sc.example.defined()) {
    auto shown = sc.example.masked_fill(torch::ones_like(sc.example, torch::kBool).triu(1), std::nan(""));
    m.details["figures"].push_back({{"id", "example_pattern"},
                                    {"paper_figure", "Figure 4"},
                                    {"type", "heatmap"},
                                    {"title", "attention pattern, " + layer_name + ", one example sequence"},
                                    {"xlabel", "key"},
                                    {"ylabel", "query"},
                                    {"cblabel", "attention"},
                                    {"xtics", sc.example_tokens},
                                    {"ytics", sc.example_tokens},
                                    {"matrix", matrix_json(shown)}});
  }
  if (p["query"] == "equals") {
    nlohmann::json labels = nlohmann::json::array();
    for (int i = 0; i < task::kSeqLen; ++i) labels.push_back(std::to_string(i));
    m.details["figures"].push_back({{"id", "mean_equals_row"},
                                    {"paper_figure", "Figure 4"},
                                    {"type", "bars"},
                                    {"title", "mean attention of '=' by key position, " + layer_name},
                                    {"xlabel", "key position"},
                                    {"ylabel", "mean attention"},
                                    {"labels", labels},
                                    {"values", m.details["mean_equals_row"]}});
  }
  for (const std::string set : p["report_sets"]) {
    const Scores other = score(in, {set});
    m.details["unthresholded"][set + " top_fraction"] = fraction(other);
    m.details["unthresholded"][set + " mean_mass"] = mean_measurement(other.masses).value;
  }
  return m;
}

}  // namespace

void register_attention(Registry& r) {
  const std::string doc =
      "layer: 1 | 2 (paper numbering)\nsets: evaluation sets (default [test_1, test_2])\n"
      "size: sequences per set (default 2000)\neval_seed: default the paper's analysis_seed (20260531)\nquery: equals "
      "| constants\n"
      "target: operands | sources | previous\nreport_sets: sets measured the same way and reported without a threshold "
      "(default [])";
  add_modes(r, measure, parse, doc, {{pattern_hook(0)}, {pattern_hook(1), task::kEqualsPos}},
            {{"attention_targets", Statistic::Proportion, "top_fraction",
              "fraction of '=' (or assignment-constant) rows whose top attended positions are the targets"},
             {"attention_mass", Statistic::Scalar, "mass",
              "mean attention mass from '=' (or from assignment constants) on the target positions"}});
}

}  // namespace cc::assign_and_add
