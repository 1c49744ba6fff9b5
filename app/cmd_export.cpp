// claimcheck export CHECKPOINT --format transformer-lens --out DIR
//   DIR/model.safetensors   the state dict of a TransformerLens HookedTransformer of the checkpoint's
//                           shape, complete: `load_state_dict(..., strict=True)` accepts it
//   DIR/config.json         the HookedTransformerConfig arguments that build that model
// A claimcheck checkpoint holds only what the model uses: no biases, and no MLP in a block without
// one. A HookedTransformer has every bias and an MLP in every block, so the export adds them, all
// zero: a zero MLP adds relu(0 + 0) W_out + 0 = 0 to the residual stream, and zero biases add
// nothing, so the exported model computes the same function (ctest reference.transformerlens_export).
// It also holds the attention's buffers that TransformerLens saves in its state dict: `mask`, the
// causal mask, and `IGNORE`, the value masked scores take.
#include <torch/torch.h>

#include <filesystem>
#include <iostream>
#include <limits>
#include <set>

#include "cli.h"
#include "train/checkpoint.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/safetensors.h"

namespace cc::app {
namespace fs = std::filesystem;
namespace {

// HookedTransformerConfig's arguments for this shape. Attention scores are scaled by 1/sqrt(d_head)
// (TransformerLens's use_attn_scale default) and positions are learned (positional_embedding_type
// "standard"), as in claimcheck's model.
nlohmann::json transformer_lens_config(const model::ModelConfig& m) {
  return {{"n_layers", m.n_layers}, {"d_model", m.d_model},
          {"n_ctx", m.n_ctx},       {"d_head", m.d_head},
          {"n_heads", m.n_heads},   {"d_mlp", m.d_mlp},
          {"d_vocab", m.d_vocab},   {"d_vocab_out", m.d_vocab_out},
          {"act_fn", m.activation}, {"normalization_type", nullptr},
          {"attn_only", false},     {"positional_embedding_type", "standard"},
          {"use_attn_scale", true}, {"original_architecture", "claimcheck"}};
}

// Every tensor of a HookedTransformer's state dict, in its module order: the checkpoint's own where
// it has one, zeros (biases, a block's absent MLP) or TransformerLens's buffers otherwise.
StFile transformer_lens_state(const model::Transformer& model, const model::ModelConfig& m) {
  std::map<std::string, torch::Tensor> have;
  for (const auto& [name, t] : model.named_parameters()) have[name] = t;
  std::set<std::string> used;
  StFile out;
  out.metadata = {{"format", "pt"}, {"producer", "claimcheck export --format transformer-lens"}};
  auto add = [&](const std::string& name, const std::vector<int64_t>& shape) {
    auto it = have.find(name);
    torch::Tensor t = it != have.end() ? it->second : torch::zeros(shape);
    if (t.sizes().vec() != shape)
      throw Error("tensor '" + name + "' has shape " + c10::str(t.sizes()) + ", expected " +
                  c10::str(c10::IntArrayRef(shape)));
    if (it != have.end()) used.insert(name);
    out.tensors.emplace_back(name, train::safetensors_tensor(t));
  };
  const int64_t D = m.d_model, H = m.n_heads, Dh = m.d_head, F = m.d_mlp, T = m.n_ctx;
  add("embed.W_E", {m.d_vocab, D});
  add("pos_embed.W_pos", {T, D});
  for (int l = 0; l < m.n_layers; ++l) {
    const std::string a = "blocks." + std::to_string(l) + ".attn.";
    add(a + "W_Q", {H, D, Dh});
    add(a + "W_O", {H, Dh, D});
    add(a + "b_Q", {H, Dh});
    add(a + "b_O", {D});
    add(a + "W_K", {H, D, Dh});
    add(a + "b_K", {H, Dh});
    add(a + "W_V", {H, D, Dh});
    add(a + "b_V", {H, Dh});
    out.tensors.emplace_back(a + "mask", train::safetensors_tensor(torch::ones({T, T}, torch::kBool).tril()));
    out.tensors.emplace_back(a + "IGNORE",
                             train::safetensors_tensor(torch::tensor(-std::numeric_limits<float>::infinity())));
    const std::string p = "blocks." + std::to_string(l) + ".mlp.";
    add(p + "W_in", {D, F});
    add(p + "b_in", {F});
    add(p + "W_out", {F, D});
    add(p + "b_out", {D});
  }
  add("unembed.W_U", {D, m.d_vocab_out});
  add("unembed.b_U", {m.d_vocab_out});
  // A tensor the checkpoint has and the export would drop means the model has a part TransformerLens's
  // HookedTransformer (as configured above) does not: refuse rather than export another function.
  for (const auto& [name, t] : have)
    if (!used.count(name)) throw Error("tensor '" + name + "' has no place in a HookedTransformer of this shape");
  return out;
}

}  // namespace

int cmd_export(const std::vector<std::string>& args) {
  po::options_description desc("export options");
  std::string checkpoint, format, out;
  // clang-format off
  desc.add_options()
      ("checkpoint", po::value(&checkpoint)->required(), "a stepNNNNNN.safetensors file (its .json sidecar beside it)")
      ("format", po::value(&format)->required(), "transformer-lens")
      ("out", po::value(&out)->required(), "directory for model.safetensors and config.json (created; files there are replaced)");
  // clang-format on
  po::positional_options_description pos;
  pos.add("checkpoint", 1);
  po::variables_map vm;
  if (!parse("export", "CHECKPOINT --format transformer-lens --out DIR", desc, pos, args, vm)) return kExitOk;
  if (format != "transformer-lens") throw po::error("--format " + format + ": the one format is transformer-lens");
  const auto ck = train::load_checkpoint(checkpoint);  // checks the sidecar's sha256, names and shapes
  const model::ModelConfig& m = ck.config.model;
  StFile state;
  try {
    state = transformer_lens_state(*ck.model, m);
  } catch (const Error& e) {
    throw Error(checkpoint + ": " + e.what());
  }
  std::error_code ec;
  fs::create_directories(out, ec);
  if (!fs::is_directory(out)) throw Error(out + ": cannot create the output directory (" + ec.message() + ")");
  write_safetensors(out + "/model.safetensors", state);
  nlohmann::json config = transformer_lens_config(m);
  write_file_atomic(out + "/config.json", config.dump(2) + "\n");
  std::cout << "exported " << checkpoint << " (run " << ck.config.name << ", step " << ck.step << "): " << out
            << "/model.safetensors (" << state.tensors.size() << " tensors), " << out << "/config.json\n";
  return kExitOk;
}

}  // namespace cc::app
