// claimcheck export CHECKPOINT --format transformer-lens --out DIR, and its inverse, claimcheck import.
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

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <limits>
#include <set>

#include "catalogue/paper_layout.h"
#include "catalogue/runs.h"
#include "cli.h"
#include "train/checkpoint.h"
#include "util/file_io.h"
#include "util/fixture_manifest.h"
#include "util/json_input.h"
#include "util/sha256.h"
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

// HookedTransformerConfig keys that change the function a model computes and that the export leaves
// at TransformerLens's defaults: an imported config.json naming another value describes a model the
// run's architecture cannot hold.
const std::map<std::string, nlohmann::json>& function_defaults() {
  static const std::map<std::string, nlohmann::json> d = {
      {"gated_mlp", false},          {"parallel_attn_mlp", false}, {"final_rms", false},
      {"rotary_dim", nullptr},       {"num_experts", nullptr},     {"attention_dir", "causal"},
      {"use_local_attn", false},     {"use_qk_norm", false},       {"use_normalization_before_and_after", false},
      {"n_key_value_heads", nullptr}};
  return d;
}

// config.json against the run's shape: every key the export writes (but its producer's name) must be
// the run's, and no key that changes the function may leave TransformerLens's default.
void check_transformer_lens_config(const nlohmann::json& given, const model::ModelConfig& m, const std::string& path) {
  if (!given.is_object()) throw Error(path + ": not a JSON object (a HookedTransformerConfig's arguments)");
  const nlohmann::json run_config = transformer_lens_config(m);  // kept alive: items() only refers to it
  for (const auto& [key, want] : run_config.items()) {
    if (key == "original_architecture") continue;
    if (!given.contains(key)) throw Error(path + ": no \"" + key + "\" (the run's model has " + want.dump() + ")");
    if (given[key] != want)
      throw Error(path + ": \"" + key + "\" is " + given[key].dump() + ", the run's model has " + want.dump());
  }
  for (const auto& [key, want] : function_defaults())
    if (given.contains(key) && !given[key].is_null() && given[key] != want &&
        !(key == "n_key_value_heads" && given[key] == nlohmann::json(m.n_heads)))
      throw Error(path + ": \"" + key + "\" is " + given[key].dump() + ": the run's model has no such part (" +
                  want.dump() + ")");
  if (given.contains("attn_scale") && given["attn_scale"].is_number() &&
      std::abs(given["attn_scale"].get<double>() - std::sqrt(static_cast<double>(m.d_head))) > 1e-6)
    throw Error(path + ": \"attn_scale\" is " + given["attn_scale"].dump() +
                "; the run's model divides by sqrt(d_head)");
}

// The state dict's tensors as the run's model holds them. Each tensor the model has is taken (as float32,
// its shape checked by Transformer::load); every other one must be a part the model lacks that adds
// nothing: a zero bias or a zero MLP (export's padding), or TransformerLens's buffers `mask` (causal)
// and `IGNORE`. A nonzero extra is refused: the model would compute another function.
std::map<std::string, torch::Tensor> weights_for_run(const StFile& file, const model::Transformer& model,
                                                     const std::string& path) {
  std::set<std::string> wanted;
  for (const auto& [name, t] : model.named_parameters()) wanted.insert(name);
  std::map<std::string, torch::Tensor> out;
  auto ends_with = [](const std::string& name, const std::string& tail) {
    return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (const auto& [name, t] : file.tensors) {
    const bool mask = ends_with(name, ".mask");
    if (mask || ends_with(name, ".IGNORE")) {
      if (mask && t.dtype == "BOOL" && t.shape.size() == 2) {
        const auto n = static_cast<size_t>(t.shape[0]);
        for (size_t q = 0; q < n; ++q)
          for (size_t k = 0; k < static_cast<size_t>(t.shape[1]); ++k)
            if ((t.bytes[q * static_cast<size_t>(t.shape[1]) + k] != 0) != (k <= q))
              throw Error(path + ": tensor '" + name + "' is not the causal mask; the run's model attends causally");
      }
      continue;
    }
    const torch::Tensor value = train::weights_tensor(path, name, t);
    if (wanted.count(name)) {
      out[name] = value;
      continue;
    }
    const double largest = value.numel() ? value.abs().max().item<double>() : 0.0;
    if (largest != 0.0)
      throw Error(path + ": tensor '" + name + "' is nonzero (largest |value| " + std::to_string(largest) +
                  "); the run's model has no such part, so it would compute another function");
  }
  for (const auto& name : wanted)
    if (!out.count(name)) throw Error(path + ": no tensor '" + name + "' (the run's model has it)");
  return out;
}

// A fixtures tree whose MANIFEST.sha256 lists every file with its sha256 (util/fixture_manifest.h), or
// an Error naming its first problem.
void require_whole(const std::string& root) {
  const ManifestCheck whole = check_manifest(root);
  if (!whole.problems.empty())
    throw Error(root + ": " + whole.problems.front() + " (" + std::to_string(whole.problems.size()) +
                " problem(s) with its " + kManifestName + "; `claimcheck fixtures verify` lists them)");
}

// Whether run `other` can stand in for `run`: the store reads a seed from any run of the same weights
// (catalogue/run_store.h), so such a run's checkpoints would mix with the imported model's.
bool same_weights(const catalogue::RunSpec& run, const catalogue::RunSpec& other) {
  if (other.name == run.name) return true;
  for (const uint64_t seed : run.seeds)
    if (other.for_seed(seed).weights_hash() == run.for_seed(seed).weights_hash()) return true;
  return false;
}

// OUT as verify reads a fixtures folder. An existing one must be whole (its manifest true) and is added
// to; a new or empty one starts as the paper's own committed fixtures (checked against their manifest,
// hard-linked where the file system allows) without the imported run and any run of the same weights:
// the claims' trained controls and the paper's other runs come from the paper, the imported run only
// from the user, and a seed of it not imported is missing, never the paper's model. A folder holding
// files no manifest vouches for is refused, not blessed.
void prepare_fixtures_folder(const std::string& out, const catalogue::Runs& runs, const catalogue::RunSpec& run) {
  namespace fs = std::filesystem;
  if (fs::exists(fs::path(out) / kManifestName)) return require_whole(out);
  if (fs::exists(out) && !fs::is_empty(out))
    throw Error(out + ": not empty and without " + kManifestName +
                "; import into a new folder or a fixtures tree with its manifest");
  const fs::path paper = catalogue::fixtures_beside(runs.path());
  if (!fs::exists(paper / kManifestName)) return;  // a paper without committed fixtures: nothing to start from
  require_whole(paper.string());
  std::set<std::string> skipped;
  for (const auto& name : runs.names())
    if (same_weights(run, *runs.find(name))) skipped.insert(name);
  auto in_skipped_run = [&](const std::string& rel) {  // a run's files lie under its name (SWEEP/VARIANT too)
    return std::any_of(skipped.begin(), skipped.end(),
                       [&](const std::string& name) { return rel.rfind(name + "/", 0) == 0; });
  };
  for (const auto& [rel, sha] : read_manifest(paper.string())) {
    const fs::path from = paper / rel, to = fs::path(out) / rel;
    if (in_skipped_run(rel)) continue;
    fs::create_directories(to.parent_path());
    std::error_code ec;
    fs::create_hard_link(from, to, ec);
    if (ec) fs::copy_file(from, to);  // another file system: a copy
  }
}

// A seed folder that holds a run not imported (the paper's own, linked in when the folder was started)
// takes no imported model: the run would mix the user's checkpoints with the paper's.
void refuse_mixing(const std::string& seed_dir) {
  const std::string run_json = seed_dir + "/run.json";
  if (!std::filesystem::exists(run_json)) return;
  const nlohmann::json run = parse_json(read_regular_file(run_json, kMaxJsonBytes, "run.json"), run_json);
  if (!run.is_object() || run.value("imported", false) != true)
    throw Error(seed_dir +
                ": holds a run that was not imported (its run.json says so); a model imported there would "
                "mix with its checkpoints: import it into a new folder");
}

// DIR/run.json as a fixture run has it (util/fixture_manifest.h): every file's sha256, so `fixtures
// verify` checks the folder, and where its models came from. No `recreate` command: nothing here can
// retrain a model made elsewhere.
void write_imported_run_json(const std::string& dir, const nlohmann::json& imported_from) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != "run.json")
      files[e.path().filename().string()] = sha256_file(e.path().string());
  const nlohmann::json run = {
      {"format", kFixtureRunFormat}, {"imported", true}, {"last_imported_from", imported_from}, {"sha256", files}};
  write_file_atomic(dir + "/run.json", run.dump(2) + "\n");
}

}  // namespace

// claimcheck import DIR --runs RUNS --run NAME --seed K --out FIXTURES [--step N]
//   DIR holds model.safetensors and config.json as `export` writes them (a TransformerLens
//   HookedTransformer's state dict and config); they become FIXTURES/NAME/seedK/stepNNNNNN.safetensors
//   and its sidecar, a checkpoint of that run which `verify --fixtures FIXTURES` reads as the run's own;
//   a new FIXTURES starts as the paper's own fixtures without that run (its trained controls, its other
//   runs), and FIXTURES/MANIFEST.sha256 lists every file (verified before each import, rewritten after).
//   export -> import gives the same weights, bit for bit (ctest cli.import).
int cmd_import(const std::vector<std::string>& args) {
  po::options_description desc("import options");
  std::string dir, runs_file, run, seed_text, out;
  int64_t step = -1;
  // clang-format off
  desc.add_options()
      ("dir", po::value(&dir)->required(), "a folder with model.safetensors and config.json (TransformerLens)")
      ("runs", po::value(&runs_file)->required(), "the paper's runs file (papers/NAME/runs.yaml)")
      ("run", po::value(&run)->required(), "the run whose checkpoint the model becomes (its task and shape)")
      ("seed", po::value(&seed_text)->required(), "the seed folder it goes into")
      ("step", po::value(&step), "the step it stands at (default: the run's last, what claims call `final`)")
      ("out", po::value(&out)->required(), "fixtures folder: the checkpoint goes to OUT/RUN/seedK/ (a new file)");
  // clang-format on
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  if (!parse("import", "DIR --runs RUNS --run NAME --seed K --out FIXTURES [--step N]", desc, pos, args, vm))
    return kExitOk;
  const uint64_t seed = parse_seed(seed_text, "--seed");
  const catalogue::Runs runs = catalogue::Runs::load(runs_file);
  const catalogue::RunSpec* spec = runs.find(run);
  if (!spec) throw po::error("--run " + run + ": no such run in " + runs_file);
  const train::RunConfig cfg = spec->for_seed(seed);
  if (!vm.count("step")) step = cfg.train.steps;
  if (step < 0 || step > cfg.train.steps)
    throw po::error("--step " + std::to_string(step) + ": the run trains steps 0 to " +
                    std::to_string(cfg.train.steps));
  const std::string config_path = dir + "/config.json", weights_path = dir + "/model.safetensors";
  check_transformer_lens_config(parse_json(read_regular_file(config_path, kMaxJsonBytes, "config"), config_path),
                                cfg.model, config_path);
  model::Transformer model(cfg.model);
  model.load(weights_for_run(read_safetensors(weights_path), model, weights_path));
  const std::string into = (std::filesystem::path(out) / run / ("seed" + std::to_string(seed))).string();
  const std::string target = train::checkpoint_path(into, step);
  if (std::filesystem::exists(target))
    throw Error(target + ": exists; import writes a new checkpoint and never replaces one");
  prepare_fixtures_folder(out, runs, *spec);
  refuse_mixing(into);
  std::filesystem::create_directories(into);
  const nlohmann::json extra = {{"command", join_command("import", args)},
                                {"imported_from",
                                 {{"model", weights_path},
                                  {"model_sha256", sha256_file(weights_path)},
                                  {"config_sha256", sha256_file(config_path)}}}};
  train::save_checkpoint(into, model, cfg, step, extra);
  write_imported_run_json(into, extra["imported_from"]);
  write_manifest(out);  // the tree was whole before: it lists what it did and the new files
  std::cout << "imported " << weights_path << " as run " << run << " seed " << seed << " step " << step << ": "
            << target << "\n";
  return kExitOk;
}

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
