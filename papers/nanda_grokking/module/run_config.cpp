#include "papers/nanda_grokking/module/run_config.h"

#include <cmath>

#include "train/run_config.h"
#include "util/error.h"

namespace cc::nanda_grokking {

OptimConfig OptimConfig::from_yaml(ObjectReader r) {
  OptimConfig c;
  if (r.has("batch") && r.string("batch") != "full") r.fail("batch", "only full-batch training is stated ('full')");
  c.steps = r.integer_in("steps", 0, 1, 1000000000);
  c.lr = r.number("lr");
  c.weight_decay = r.number("weight_decay");
  c.beta1 = r.number("beta1");
  c.beta2 = r.number("beta2");
  c.eps = r.number("eps");
  c.warmup_steps = r.integer_in("warmup_steps", c.warmup_steps, 0, 1000000000);
  c.eval_every = r.integer_in("eval_every", c.eval_every, 1, 1000000000);
  c.checkpoint_every = r.integer_in("checkpoint_every", c.checkpoint_every, 0, 1000000000);
  c.resume_every = r.integer_in("resume_every", c.resume_every, 1, 1000000000);
  if (!(c.lr > 0)) r.fail("lr", "must be > 0");
  if (!(c.weight_decay >= 0)) r.fail("weight_decay", "must be >= 0");
  if (!(c.beta1 >= 0 && c.beta1 < 1)) r.fail("beta1", "must be in [0, 1)");
  if (!(c.beta2 >= 0 && c.beta2 < 1)) r.fail("beta2", "must be in [0, 1)");
  if (!(c.eps > 0)) r.fail("eps", "must be > 0");
  r.finish();
  return c;
}

nlohmann::json OptimConfig::to_json() const {
  return {{"batch", "full"},
          {"steps", steps},
          {"lr", lr},
          {"weight_decay", weight_decay},
          {"beta1", beta1},
          {"beta2", beta2},
          {"eps", eps},
          {"warmup_steps", warmup_steps},
          {"eval_every", eval_every},
          {"checkpoint_every", checkpoint_every},
          {"resume_every", resume_every}};
}

double OptimConfig::lr_at(int64_t step) const { return train::warmup_lr(lr, warmup_steps, step); }

bool OptimConfig::keeps_checkpoint(int64_t step) const {
  return train::on_checkpoint_grid(step, steps, checkpoint_every);
}

RunConfig RunConfig::from_yaml(ObjectReader r, const std::string& name, uint64_t seed) {
  RunConfig c;
  c.name = name;
  c.seed = seed;
  c.task = TaskConfig::from_yaml(r.object("task"));
  // This task's token space: p numbers and '=' in, the p numbers out ("numbers"), 3 positions.
  c.model = model::ModelConfig::from_yaml(r.object("model"), {c.task.vocab_size(), c.task.modulus, kSeqLen});
  if (c.model.output_vocab != "numbers") r.fail("model", "output_vocab must be 'numbers' (the p residues)");
  c.train = OptimConfig::from_yaml(r.object("train"));
  r.finish();
  return c;
}

RunConfig RunConfig::from_json(const nlohmann::json& j) {
  YamlDoc doc;
  doc.file = "<grokking run config json>";
  doc.value = j;
  ObjectReader r(doc, "");
  const std::string name = r.string("name");
  const auto seed = static_cast<uint64_t>(r.integer_in("seed", 0, 0, int64_t{1} << 62));
  return from_yaml(r, name, seed);
}

nlohmann::json RunConfig::to_json() const {
  return {{"name", name},
          {"seed", seed},
          {"task", task.to_json()},
          {"model", model.to_json(true)},
          {"train", train.to_json()}};
}

namespace {
ObjectReader run_entry(const YamlDoc& doc, const std::string& name) {
  ObjectReader top(doc, "");
  ObjectReader runs = top.object("runs");
  if (!runs.has(name)) throw Error(doc.at("/runs"), "no run named '" + name + "'");
  return ObjectReader(doc, "/runs/" + name);
}
}  // namespace

RunConfig read_run(const std::string& runs_yaml, const std::string& name, uint64_t seed) {
  const YamlDoc doc = load_yaml_file(runs_yaml);
  return RunConfig::from_yaml(run_entry(doc, name).object("config"), name, seed);
}

std::vector<int64_t> run_seeds(const std::string& runs_yaml, const std::string& name) {
  const YamlDoc doc = load_yaml_file(runs_yaml);
  ObjectReader r = run_entry(doc, name);
  auto seeds = r.integers("seeds", {});
  if (seeds.empty()) r.fail("seeds", "list at least one seed");
  return seeds;
}

}  // namespace cc::nanda_grokking
