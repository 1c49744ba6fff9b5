#include "model/config.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace cc::model {

void ModelConfig::derive(const TokenSpace& tokens) {
  if (tokens.d_vocab < 1 || tokens.n_ctx < 1 || tokens.n_answers < 1 || tokens.n_answers > tokens.d_vocab)
    throw Error("model: the task's token space needs d_vocab >= 1, n_ctx >= 1 and 1 <= n_answers <= d_vocab");
  d_vocab = tokens.d_vocab;
  d_vocab_out = output_vocab == "numbers" ? tokens.n_answers : d_vocab;
  n_ctx = tokens.n_ctx;
}

bool ModelConfig::has_mlp(int layer) const {
  return std::find(mlp_layers.begin(), mlp_layers.end(), layer) != mlp_layers.end();
}

int ModelConfig::last_mlp_layer() const { return mlp_layers.empty() ? -1 : mlp_layers.back(); }

double ModelConfig::effective_init_std() const {
  return init_std > 0 ? init_std : 0.8 / std::sqrt(static_cast<double>(d_model));
}

ModelConfig ModelConfig::from_yaml(ObjectReader r, const TokenSpace& tokens) {
  ModelConfig c;
  c.d_model = static_cast<int>(r.integer_in("d_model", 1, 65536));
  c.d_head = static_cast<int>(r.integer_in("d_head", 1, 65536));
  c.n_heads = static_cast<int>(r.integer_in("n_heads", 1, 65536));
  c.d_mlp = static_cast<int>(r.integer_in("d_mlp", 1, 65536));
  c.activation = r.one_of("activation", {"relu", "gelu"});
  c.output_vocab = r.one_of("output_vocab", {"full", "numbers"});
  c.init_std = r.number("init_std");
  ObjectReader init = r.object_or_empty("init");
  for (const auto& [name, value] : init.json().items()) {
    const bool identity = value.is_string() && value.get<std::string>() == "identity";
    const bool std_dev = value.is_number() && value.get<double>() > 0 && std::isfinite(value.get<double>());
    if (!identity && !std_dev) init.fail(name, "must be a standard deviation > 0 or 'identity'");
    init.raw(name);
    c.init[name] = identity ? value : nlohmann::json(value.get<double>());  // 1 and 1.0: one config, one hash
  }
  // Neither n_layers nor mlp_layers: the key-less form of the 2-block shape (config.h).
  const bool keyless = !r.has("n_layers") && !r.has("mlp_layers");
  c.n_layers = static_cast<int>(r.integer_in("n_layers", 2, 1, 16));
  if (keyless) {
    c.mlp_layers = {1};
  } else if (r.has("mlp_layers")) {
    for (int64_t l : r.integers("mlp_layers", {})) {
      if (l < 0 || l >= c.n_layers) r.fail("mlp_layers", "block " + std::to_string(l) + " is not in [0, n_layers - 1]");
      if (!c.mlp_layers.empty() && l <= c.mlp_layers.back())
        r.fail("mlp_layers", "blocks are listed once each, in ascending order");
      c.mlp_layers.push_back(static_cast<int>(l));
    }
  } else {
    r.fail("n_layers", "say which blocks have an MLP (mlp_layers: [..])");
  }
  for (const char* key : {"d_model", "d_head", "n_heads", "d_mlp"})
    if (r.has(key) && r.raw(key).get<int64_t>() <= 0) r.fail(key, "must be a positive integer");
  r.finish();
  c.derive(tokens);
  return c;
}

ModelConfig ModelConfig::from_json(const nlohmann::json& j, const TokenSpace& tokens) {
  YamlDoc doc;
  doc.file = "<model config json>";
  doc.value = j;
  return from_yaml(ObjectReader(doc, ""), tokens);
}

nlohmann::json ModelConfig::to_json(bool every_field) const {
  nlohmann::json j = {{"d_model", d_model},  {"d_head", d_head},         {"n_heads", n_heads},
                      {"d_mlp", d_mlp},      {"activation", activation}, {"output_vocab", output_vocab},
                      {"init_std", init_std}};
  if (!init.empty()) j["init"] = init;  // not even for every_field: the runs that predate it keep their hashes
  if (every_field || !is_two_layer_mlp_last()) {  // else left out: the hashes of earlier runs stay
    j["n_layers"] = n_layers;
    j["mlp_layers"] = mlp_layers;
  }
  return j;
}

}  // namespace cc::model
