#include "model/config.h"

#include <cmath>

namespace cc::model {

void ModelConfig::derive(const task::TaskConfig& task) {
  task::Vocab vocab(task);
  d_vocab = vocab.size();
  d_vocab_out = output_vocab == "numbers" ? task.modulus : d_vocab;
  n_ctx = task::kSeqLen;
}

double ModelConfig::effective_init_std() const {
  return init_std > 0 ? init_std : 0.8 / std::sqrt(static_cast<double>(d_model));
}

ModelConfig ModelConfig::from_yaml(ObjectReader r, const task::TaskConfig& task) {
  ModelConfig c;
  c.d_model = static_cast<int>(r.integer_in("d_model", c.d_model, 1, 65536));
  c.d_head = static_cast<int>(r.integer_in("d_head", c.d_head, 1, 65536));
  c.n_heads = static_cast<int>(r.integer_in("n_heads", c.n_heads, 1, 65536));
  c.d_mlp = static_cast<int>(r.integer_in("d_mlp", c.d_mlp, 1, 65536));
  c.activation = r.one_of("activation", {"relu", "gelu"}, c.activation);
  c.output_vocab = r.one_of("output_vocab", {"full", "numbers"}, c.output_vocab);
  c.init_std = r.number("init_std", c.init_std);
  for (const char* key : {"d_model", "d_head", "n_heads", "d_mlp"})
    if (r.has(key) && r.raw(key).get<int64_t>() <= 0) r.fail(key, "must be a positive integer");
  r.finish();
  c.derive(task);
  return c;
}

ModelConfig ModelConfig::from_json(const nlohmann::json& j, const task::TaskConfig& task) {
  YamlDoc doc;
  doc.file = "<model config json>";
  doc.value = j;
  return from_yaml(ObjectReader(doc, ""), task);
}

nlohmann::json ModelConfig::to_json() const {
  return {{"d_model", d_model},  {"d_head", d_head},         {"n_heads", n_heads},
          {"d_mlp", d_mlp},      {"activation", activation}, {"output_vocab", output_vocab},
          {"init_std", init_std}};
}

}  // namespace cc::model
