#include "train/run_config.h"

#include <algorithm>
#include <set>

#include "train/family.h"
#include "util/sha256.h"

namespace cc::train {

namespace {

// The fields every optimizer has.
void read_lr_and_decay(ObjectReader& r, TrainConfig& c) {
  c.lr = r.number("lr");
  c.weight_decay = r.number("weight_decay");
  // Bounded above too: the optimizer multiplies float32 weights by lr and lr * weight_decay, and a
  // factor past float's range (lr: 1e300) ended in libtorch's "internal error". 1e3 is far past any
  // rate that trains; negated, the comparisons refuse NaN as well.
  if (!(c.lr > 0 && c.lr <= 1e3)) r.fail("lr", "must be in (0, 1000]");
  if (!(c.weight_decay >= 0 && c.weight_decay <= 1e3)) r.fail("weight_decay", "must be in [0, 1000]");
}

}  // namespace

void read_adamw(ObjectReader& r, TrainConfig& c) {
  read_lr_and_decay(r, c);
  c.beta1 = r.number("beta1");
  c.beta2 = r.number("beta2");
  c.eps = r.number("eps");
  if (!(c.beta1 >= 0 && c.beta1 < 1)) r.fail("beta1", "must be in [0, 1)");
  if (!(c.beta2 >= 0 && c.beta2 < 1)) r.fail("beta2", "must be in [0, 1)");
  if (!(c.eps > 0)) r.fail("eps", "must be > 0");
}

void read_optimizer_fields(ObjectReader& r, TrainConfig& c) {
  c.optimizer = r.one_of("optimizer", {"adamw", "sgd"}, c.optimizer);
  if (c.optimizer == "adamw") return read_adamw(r, c);
  read_lr_and_decay(r, c);
  c.momentum = r.number("momentum");
  if (!(c.momentum >= 0 && c.momentum < 1)) r.fail("momentum", "must be in [0, 1)");
}

TrainConfig TrainConfig::from_yaml(ObjectReader r) {
  TrainConfig c;
  c.steps = r.integer_in("steps", 1, 1000000000);
  c.batch_size = static_cast<int>(r.integer_in("batch_size", 1, 1 << 20));
  read_optimizer_fields(r, c);
  c.frozen = r.strings("frozen", c.frozen);
  c.warmup_steps = r.integer_in("warmup_steps", c.warmup_steps, 0, 1000000000);
  c.max_grad_norm = r.number("max_grad_norm", c.max_grad_norm);
  c.eval_every = r.integer_in("eval_every", c.eval_every, 1, 1000000000);
  c.eval_size = static_cast<int>(r.integer_in("eval_size", c.eval_size, 1, 10000000));
  c.eval_seed =
      static_cast<uint64_t>(r.integer_in("eval_seed", static_cast<int64_t>(c.eval_seed), 0, int64_t{1} << 62));
  c.checkpoint_steps = r.integers("checkpoint_steps", c.checkpoint_steps);
  c.checkpoint_every = r.integer_in("checkpoint_every", c.checkpoint_every, 0, 1000000000);
  c.resume_every = r.integer_in("resume_every", c.resume_every, 1, 1000000000);
  c.engine = r.one_of("engine", {"libtorch", "blas"}, c.engine);
  c.loss_precision = r.one_of("loss_precision", {"float32", "float64"}, c.loss_precision);
  if (c.steps < 0) r.fail("steps", "must be >= 0");
  if (c.batch_size < 1) r.fail("batch_size", "must be >= 1");
  if (!(c.max_grad_norm >= 0)) r.fail("max_grad_norm", "must be >= 0 (0: no clipping)");
  if (c.eval_every < 1) r.fail("eval_every", "must be >= 1");
  if (c.eval_size < 1) r.fail("eval_size", "must be >= 1");
  if (c.checkpoint_every < 0) r.fail("checkpoint_every", "must be >= 0");
  if (c.resume_every < 1) r.fail("resume_every", "must be >= 1");
  std::set<std::string> frozen;
  for (const auto& name : c.frozen)
    if (!frozen.insert(name).second) r.fail("frozen", "'" + name + "' is listed twice");
  for (int64_t s : c.checkpoint_steps)
    if (s < 0 || s > c.steps) r.fail("checkpoint_steps", "step " + std::to_string(s) + " is outside [0, steps]");
  r.finish();
  return c;
}

double warmup_lr(double lr, int64_t warmup_steps, int64_t step) {
  if (warmup_steps <= 0 || step >= warmup_steps) return lr;
  return lr * static_cast<double>(step) / static_cast<double>(warmup_steps);
}

bool on_checkpoint_grid(int64_t step, int64_t last, int64_t every) {
  return step == 0 || step == last || (every > 0 && step % every == 0);
}

bool TrainConfig::keeps_checkpoint(int64_t step) const {
  return on_checkpoint_grid(step, steps, checkpoint_every) ||
         std::find(checkpoint_steps.begin(), checkpoint_steps.end(), step) != checkpoint_steps.end();
}

double TrainConfig::lr_at(int64_t step) const { return warmup_lr(lr, warmup_steps, step); }

nlohmann::json TrainConfig::to_json(bool every_field) const {
  nlohmann::json j = {{"steps", steps}, {"batch_size", batch_size}, {"lr", lr}, {"weight_decay", weight_decay}};
  if (every_field || optimizer != "adamw") j["optimizer"] = optimizer;
  // Each optimizer's own fields only (the config is read back from this JSON: sweeps, sidecars).
  if (optimizer == "adamw") {
    j["beta1"] = beta1;
    j["beta2"] = beta2;
    j["eps"] = eps;
  }
  if (optimizer == "sgd") j["momentum"] = momentum;
  if (every_field || !frozen.empty()) j["frozen"] = frozen;
  j.update(nlohmann::json{{"eval_every", eval_every},
                          {"eval_size", eval_size},
                          {"eval_seed", eval_seed},
                          {"checkpoint_steps", checkpoint_steps},
                          {"checkpoint_every", checkpoint_every},
                          {"resume_every", resume_every}});
  // Only when not the default: every run trained before the field existed keeps its hash.
  if (every_field || engine != "libtorch") j["engine"] = engine;
  if (every_field || warmup_steps != 0) j["warmup_steps"] = warmup_steps;
  if (every_field || max_grad_norm != 0.0) j["max_grad_norm"] = max_grad_norm;
  if (every_field || loss_precision != "float32") j["loss_precision"] = loss_precision;
  return j;
}

RunConfig RunConfig::from_yaml(ObjectReader r) {
  RunConfig c;
  c.name = r.string("name", c.name);
  const int64_t seed = r.integer_in("seed", 0, 0, int64_t{1} << 62);
  c.seed = static_cast<uint64_t>(seed);
  // The task's family reads the rest: the one `task.family` names, else the default one.
  const TaskFamily* family = nullptr;
  if (r.has("task") && r.raw("task").is_object() && r.raw("task").contains("family")) {
    ObjectReader task = r.object("task");
    const std::string name = task.string("family");
    family = find_family(name);
    if (!family) task.fail("family", unknown_family_message(name));
  } else {
    family = default_family();
    if (!family) r.fail("task", "names no task family (task.family) and no paper module registered a default one");
  }
  c.family = family->name;
  family->read(r, c);
  return c;
}

RunConfig RunConfig::from_file(const std::string& path) {
  YamlDoc doc = load_yaml_file(path);
  return from_yaml(ObjectReader(doc, ""));
}

RunConfig RunConfig::from_json(const nlohmann::json& j) {
  YamlDoc doc;
  doc.file = "<run config json>";
  doc.value = j;
  return from_yaml(ObjectReader(doc, ""));
}

nlohmann::json RunConfig::to_json(bool every_field) const {
  if (const TaskFamily* f = family.empty() ? nullptr : find_family(family); f && f->write) {
    nlohmann::json j = f->write(*this);
    j["name"] = name;
    j["seed"] = seed;
    return j;
  }
  return {{"name", name},
          {"seed", seed},
          {"task", task},
          {"model", model.to_json(every_field)},
          {"train", train.to_json(every_field)}};
}

std::string RunConfig::weights_hash() const {
  nlohmann::json j = to_json();
  j.erase("name");
  for (const char* k : {"eval_every", "eval_size", "eval_seed", "checkpoint_steps", "checkpoint_every", "resume_every"})
    if (j.contains("train")) j["train"].erase(k);
  return sha256_hex(j.dump()).substr(0, 16);
}

std::vector<UnstatedChoice> unstated_choices(const RunConfig& c) {
  const TaskFamily& family = family_of(c);
  return family.unstated ? family.unstated(c) : std::vector<UnstatedChoice>{};
}

}  // namespace cc::train
