#include "train/run_config.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "train/family.h"
#include "util/sha256.h"

namespace cc::train {

TrainConfig TrainConfig::from_yaml(ObjectReader r) {
  TrainConfig c;
  c.steps = r.integer_in("steps", c.steps, 1, 1000000000);
  c.batch_size = static_cast<int>(r.integer_in("batch_size", c.batch_size, 1, 1 << 20));
  c.lr = r.number("lr", c.lr);
  c.weight_decay = r.number("weight_decay", c.weight_decay);
  c.beta1 = r.number("beta1", c.beta1);
  c.beta2 = r.number("beta2", c.beta2);
  c.eps = r.number("eps", c.eps);
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
  if (c.steps < 0) r.fail("steps", "must be >= 0");
  if (c.batch_size < 1) r.fail("batch_size", "must be >= 1");
  if (!(c.lr > 0)) r.fail("lr", "must be > 0");
  if (c.weight_decay < 0) r.fail("weight_decay", "must be >= 0");
  if (!(c.beta1 >= 0 && c.beta1 < 1)) r.fail("beta1", "must be in [0, 1)");
  if (!(c.beta2 >= 0 && c.beta2 < 1)) r.fail("beta2", "must be in [0, 1)");
  if (!(c.eps > 0)) r.fail("eps", "must be > 0");
  if (!(c.max_grad_norm >= 0)) r.fail("max_grad_norm", "must be >= 0 (0: no clipping)");
  if (c.eval_every < 1) r.fail("eval_every", "must be >= 1");
  if (c.eval_size < 1) r.fail("eval_size", "must be >= 1");
  if (c.checkpoint_every < 0) r.fail("checkpoint_every", "must be >= 0");
  if (c.resume_every < 1) r.fail("resume_every", "must be >= 1");
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
  nlohmann::json j = {{"steps", steps},
                      {"batch_size", batch_size},
                      {"lr", lr},
                      {"weight_decay", weight_decay},
                      {"beta1", beta1},
                      {"beta2", beta2},
                      {"eps", eps},
                      {"eval_every", eval_every},
                      {"eval_size", eval_size},
                      {"eval_seed", eval_seed},
                      {"checkpoint_steps", checkpoint_steps},
                      {"checkpoint_every", checkpoint_every},
                      {"resume_every", resume_every}};
  // Only when not the default: every run trained before the field existed keeps its hash.
  if (every_field || engine != "libtorch") j["engine"] = engine;
  if (every_field || warmup_steps != 0) j["warmup_steps"] = warmup_steps;
  if (every_field || max_grad_norm != 0.0) j["max_grad_norm"] = max_grad_norm;
  return j;
}

model::TokenSpace token_space(const task::TaskConfig& task) {
  const task::Vocab vocab(task);
  return {vocab.size(), task.modulus, task::kSeqLen};
}

RunConfig RunConfig::from_yaml(ObjectReader r) {
  RunConfig c;
  c.name = r.string("name", c.name);
  const int64_t seed = r.integer_in("seed", 0, 0, int64_t{1} << 62);
  c.seed = static_cast<uint64_t>(seed);
  // Another paper's task: its family reads the rest (train/family.h).
  if (r.has("task") && r.raw("task").is_object() && r.raw("task").contains("family")) {
    ObjectReader task = r.object("task");
    c.family = task.string("family");
    const TaskFamily* family = find_family(c.family);
    if (!family) {
      std::string known;
      for (const auto& n : family_names()) known += (known.empty() ? "" : ", ") + n;
      task.fail("family", "unknown task family '" + c.family +
                              "' (registered: " + (known.empty() ? std::string("none") : known) + ")");
    }
    family->read(r, c);
    return c;
  }
  c.task = task::TaskConfig::from_yaml(r.object_or_empty("task"));
  c.model = model::ModelConfig::from_yaml(r.object_or_empty("model"), token_space(c.task));
  c.train = TrainConfig::from_yaml(r.object_or_empty("train"));
  r.finish();
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
  if (!family.empty()) {
    nlohmann::json j = family_config;
    j["name"] = name;
    j["seed"] = seed;
    return j;
  }
  return {{"name", name},
          {"seed", seed},
          {"task", task.to_json()},
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
  if (!c.family.empty()) {
    const TaskFamily* family = find_family(c.family);
    return family && family->unstated ? family->unstated(c) : std::vector<UnstatedChoice>{};
  }
  auto num = [](double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
    return s;
  };
  return {
      {"train.batch_size", std::to_string(c.train.batch_size), "not stated in the paper"},
      {"train.beta1, train.beta2", num(c.train.beta1) + ", " + num(c.train.beta2),
       std::string("AdamW betas not stated; PyTorch's defaults are 0.9, 0.999") +
           (c.train.beta1 == 0.9 && c.train.beta2 == 0.999 ? " (used here)" : " (not used here)")},
      {"train.eps", num(c.train.eps),
       std::string("not stated; PyTorch's default is 1e-08") +
           (c.train.eps == 1e-8 ? " (used here)" : " (not used here)")},
      {"train.warmup_steps", c.train.warmup_steps ? std::to_string(c.train.warmup_steps) : "0 (none)",
       "learning-rate warmup not stated (TransformerLens's trainer: none unless set)"},
      {"train.max_grad_norm", c.train.max_grad_norm > 0 ? num(c.train.max_grad_norm) : "0 (no clipping)",
       "gradient clipping not stated (TransformerLens's trainer: none unless set)"},
      {"model.init_std", num(c.model.effective_init_std()),
       std::string("initialisation not stated; N(0, 0.8/sqrt(d_model)) is TransformerLens' default (gpt2 init)") +
           (c.model.effective_init_std() == 0.8 / std::sqrt(static_cast<double>(c.model.d_model))
                ? " (used here)"
                : " (not used here)")},
      {"model.activation", c.model.activation,
       std::string("MLP activation not stated; TransformerLens' default is gelu") +
           (c.model.activation == "gelu" ? " (used here)" : " (not used here)")},
      {"model.output_vocab", c.model.output_vocab + " (" + std::to_string(c.model.d_vocab_out) + " logits)",
       "output vocabulary size not stated"},
      {"task.assignments_min..max",
       std::to_string(c.task.assignments_min) + ".." + std::to_string(c.task.assignments_max),
       "number of assignments per sequence not stated (the §3 example has 3)"},
      {"task.allow_same_variable", c.task.allow_same_variable ? "true" : "false",
       "whether a 2-var addition may use one variable twice is not stated"},
      {"task.weight_1var : 1 : ratio_2var_to_0var",
       num(c.task.weight_1var) + " : 1 : " + num(c.task.ratio_2var_to_0var),
       "0/1/2-var training mix not stated (r is swept in §4)"},
      {"task.pair_seed", std::to_string(c.task.pair_seed), "which pairs are held out is not stated"},
      {"task.restricted_first / restricted_second",
       join(c.task.restricted_first) + " / " + join(c.task.restricted_second),
       "§3: a,b never first, g,h never second; §6 reads as if b were held out second"},
  };
}

}  // namespace cc::train
