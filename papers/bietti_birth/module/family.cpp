// The task family `trigger_bigrams`: how runs.yaml entries of this paper are read and hashed, the
// batches its runs train on (fresh sequences every step: the paper's "each batch consists of 512 fresh
// sequences") and the evaluation sets that split the next-token predictions by class of token.
#include <torch/torch.h>

#include "papers/bietti_birth/module/char_stats.h"
#include "papers/bietti_birth/module/kinds.h"
#include "papers/bietti_birth/module/memory_recall.h"
#include "papers/bietti_birth/module/trigger_task.h"
#include "plugin/paper_module.h"
#include "util/error.h"
#include "util/rng.h"

namespace cc::bietti_birth {
namespace {

constexpr const char* kFamily = "trigger_bigrams";

TaskConfig task_of(const train::RunConfig& c) {
  if (c.family != kFamily) throw Error("run '" + c.name + "' is not of the task family " + kFamily);
  YamlDoc doc;
  doc.file = "<run '" + c.name + "' task>";
  doc.value = c.task;
  return TaskConfig::from_yaml(ObjectReader(doc, ""));
}

void read_run(ObjectReader r, train::RunConfig& c) {
  const TaskConfig task = TaskConfig::from_yaml(r.object("task"));
  c.task = task.to_json();
  // Every character in and out; one position per token of the sequence.
  c.model = model::ModelConfig::from_yaml(r.object("model"), {task.vocab_size(), task.vocab_size(), task.seq_len});
  if (c.model.output_vocab != "full") r.fail("model", "output_vocab must be 'full' (the next character)");
  c.train = train::TrainConfig::from_yaml(r.object("train"));
  r.finish();
}

// The evaluation sets: one draw of sequences (a function of the eval seed only), its next-token
// predictions split by the class of the token predicted; and one set drawn with other triggers (the
// claims on generalising to triggers a run never saw), not in the metrics log.
struct SetSpec {
  const char* name;
  const char* description;
  bool other_triggers;  // drawn with triggers from pi_u outside the K most frequent characters
};
const SetSpec kSets[] = {
    {"in_context", "outputs of the sequence's triggers from their second occurrence on (the in-context bigrams)",
     false},
    {"in_context_first", "outputs of the triggers at their first occurrence (not knowable from the context)", false},
    {"global", "every token that follows a non-trigger (the global bigrams pi_b)", false},
    {"in_context_other_triggers",
     "in_context, in sequences whose K triggers are drawn from pi_u among the characters that are not the K most "
     "frequent (triggers a most_frequent run never has)",
     true},
};

torch::Tensor keep_of(const std::string& set, const Sequences& s) {
  if (set == "in_context" || set == "in_context_other_triggers") return s.occurrence >= 2;
  if (set == "in_context_first") return s.occurrence == 1;
  return s.occurrence == 0;  // global
}

class TriggerData : public train::TaskData {
 public:
  TriggerData(TaskConfig task, uint64_t seed, int batch_size)
      : task_(std::move(task)), seed_(seed), batch_(batch_size) {}

  train::Batch train_batch(int64_t step) const override {
    const Sequences s = draw_sequences(task_, seed_, stream_id("train"), static_cast<uint64_t>(step), batch_);
    const auto keep = task_.loss_on == "every_token" ? torch::ones_like(s.occurrence, torch::kBool) : s.occurrence >= 2;
    return {s.tokens, targets_where(s, keep)};
  }
  std::vector<train::NamedBatch> eval_sets(int size, uint64_t eval_seed) const override {
    const Sequences s = eval_sequences(task_, size, eval_seed);
    std::vector<train::NamedBatch> out;
    for (const auto& spec : kSets)
      if (!spec.other_triggers) out.push_back(named(spec, s));
    return out;
  }
  train::NamedBatch eval_set(const std::string& name, int size, uint64_t eval_seed) const override {
    for (const auto& spec : kSets)
      if (name == spec.name) return named(spec, eval_sequences(drawn_for(spec), size, eval_seed));
    throw Error(std::string("the ") + kFamily + " task has no evaluation set '" + name +
                "' (it has: in_context, in_context_first, global, in_context_other_triggers)");
  }

 private:
  TaskConfig drawn_for(const SetSpec& spec) const {
    TaskConfig t = task_;
    if (spec.other_triggers) t.trigger_choice = "unigram_not_most_frequent";
    return t;
  }
  static train::NamedBatch named(const SetSpec& spec, const Sequences& s) {
    return {spec.name, spec.description, false, {s.tokens, targets_where(s, keep_of(spec.name, s))}};
  }
  TaskConfig task_;
  uint64_t seed_;
  int batch_;
};

std::vector<train::UnstatedChoice> unstated(const train::RunConfig& c) {
  const TaskConfig task = task_of(c);
  const std::string scale = "d = " + std::to_string(c.model.d_model) + ", T = " + std::to_string(task.seq_len) +
                            ", batch " + std::to_string(c.train.batch_size) + ", " + std::to_string(c.train.steps) +
                            " steps";
  return {
      {"scale", scale, "reduced from the stated d = 256, T = 256, batches of 512 (assumptions.md, \"Scale\")"},
      {"task.triggers", std::to_string(task.triggers) + ", " + task.trigger_choice,
       "the paper varies K; the authors' README command for the simplified model: k=5, fixed triggers"},
      {"model.init", "N(0, 1) embeddings, N(0, 1/(3 d)) matrices",
       "the paper states random initialisation; scales as the authors' code (nn.Embedding, torch.randn, nn.Linear)"},
      {"data.rng", "claimcheck's counter-based Rng and inverse-CDF draws",
       "the distribution is stated; no two implementations draw the same sequences"},
  };
}

}  // namespace

std::vector<int> probe_triggers(const TaskConfig& task) {
  const auto& order = char_stats().by_frequency;
  if (task.trigger_choice == "most_frequent") return {order.begin(), order.begin() + task.triggers};
  std::vector<int> all(order.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  return all;
}

TaskConfig task_of(const train::Checkpoint& ck) { return task_of(ck.config); }

void register_module(const plugin::ModuleRegistrar& r) {
  train::TaskFamily f;
  f.name = kFamily;
  f.read = read_run;
  f.unstated = unstated;
  f.data = [](const train::RunConfig& c) -> std::unique_ptr<train::TaskData> {
    return std::make_unique<TriggerData>(task_of(c), c.seed, c.train.batch_size);
  };
  for (const auto& spec : kSets) f.eval_set_names.push_back(spec.name);
  f.extra_metrics = [](const train::RunConfig& c, const model::Transformer& m) {
    return memory_recall_metrics(m, probe_triggers(task_of(c)));
  };
  r.add_family(std::move(f));
  r.add_kinds(register_kinds);
}

}  // namespace cc::bietti_birth
