#include "papers/nanda_grokking/module/run_config.h"

#include "util/error.h"

namespace cc::nanda_grokking {
namespace {

// The `train:` section: the engine's TrainConfig, full batch (its batch_size stays 0: the family's
// data gives the whole training split) and a float64 loss, as the authors' code.
train::TrainConfig read_train(ObjectReader r) {
  train::TrainConfig c;
  if (r.string("batch") != "full") r.fail("batch", "only full-batch training is stated ('full')");
  c.steps = r.integer_in("steps", 1, 1000000000);
  train::read_adamw(r, c);
  c.warmup_steps = r.integer_in("warmup_steps", 10, 0, 1000000000);  // the authors' code: lr · min(step / 10, 1)
  c.eval_every = r.integer_in("eval_every", 100, 1, 1000000000);
  c.checkpoint_every = r.integer_in("checkpoint_every", 0, 0, 1000000000);
  c.resume_every = r.integer_in("resume_every", 1000, 1, 1000000000);
  c.loss_precision = "float64";  // the authors' cross_entropy_high_precision
  r.finish();
  return c;
}

nlohmann::json write_train(const train::TrainConfig& c) {
  return {{"batch", "full"},
          {"steps", c.steps},
          {"lr", c.lr},
          {"weight_decay", c.weight_decay},
          {"beta1", c.beta1},
          {"beta2", c.beta2},
          {"eps", c.eps},
          {"warmup_steps", c.warmup_steps},
          {"eval_every", c.eval_every},
          {"checkpoint_every", c.checkpoint_every},
          {"resume_every", c.resume_every}};
}

}  // namespace

void read_run(ObjectReader r, train::RunConfig& c) {
  const TaskConfig task = TaskConfig::from_yaml(r.object("task"));
  c.task = task.to_json();
  // This task's token space: p numbers and '=' in, the p numbers out ("numbers"), 3 positions.
  c.model = model::ModelConfig::from_yaml(r.object("model"), {task.vocab_size(), task.modulus, kSeqLen});
  if (c.model.output_vocab != "numbers") r.fail("model", "output_vocab must be 'numbers' (the p residues)");
  c.train = read_train(r.object("train"));
  r.finish();
}

nlohmann::json write_run(const train::RunConfig& c) {
  return {{"task", c.task}, {"model", c.model.to_json(true)}, {"train", write_train(c.train)}};
}

TaskConfig task_of(const train::RunConfig& c) {
  if (c.family != "modular_addition")
    throw Error("run '" + c.name + "' is not the grokking paper's (task family modular_addition) but '" +
                (c.family.empty() ? std::string("the default family's") : c.family) + "'");
  YamlDoc doc;
  doc.file = "<run '" + c.name + "' task>";
  doc.value = c.task;
  return TaskConfig::from_yaml(ObjectReader(doc, ""));
}

}  // namespace cc::nanda_grokking
