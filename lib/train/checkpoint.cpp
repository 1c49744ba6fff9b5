#include "train/checkpoint.h"

#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <type_traits>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/file_io.h"
#include "util/json_number.h"
#include "util/provenance.h"
#include "util/safetensors.h"
#include "util/json_input.h"
#include "util/sha256.h"

namespace cc::train {
namespace fs = std::filesystem;

StTensor safetensors_tensor(const torch::Tensor& t) {
  const auto type = t.scalar_type();
  const char* dtype = type == torch::kLong ? "I64" : type == torch::kBool ? "BOOL" : "F32";
  auto c =
      t.detach().to(torch::kCPU, type == torch::kLong || type == torch::kBool ? type : torch::kFloat32).contiguous();
  StTensor out;
  out.dtype = dtype;
  out.shape.assign(c.sizes().begin(), c.sizes().end());
  out.bytes.assign(static_cast<const char*>(c.data_ptr()), static_cast<size_t>(c.nbytes()));
  return out;
}

torch::Tensor weights_tensor(const std::string& path, const std::string& name, const StTensor& t) {
  if (t.dtype != "F32") throw Error(path + ": tensor '" + name + "' has dtype " + t.dtype + ", expected F32");
  auto out = torch::empty(t.shape, torch::kFloat32);
  std::memcpy(out.data_ptr(), t.bytes.data(), t.bytes.size());
  // A NaN or inf weight makes every measurement on the model meaningless (an all-NaN model still
  // "scores" an accuracy, and a claim that it stays low would pass): refused here, named.
  if (!torch::isfinite(out).all().item<bool>()) {
    const int64_t bad = (~torch::isfinite(out)).sum().item<int64_t>();
    throw Error(path + ": tensor '" + name + "' holds " + std::to_string(bad) + " non-finite value(s) (NaN or inf)");
  }
  return out;
}

namespace {

// libtorch keys optimizer state by the parameter's TensorImpl: as a string in 1.13, as a
// pointer in later releases. Build the key in whichever form this libtorch uses.
template <typename Map>
typename Map::key_type state_key(const Map&, const torch::Tensor& p) {
  using Key = typename Map::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream key;  // what 1.13's c10::guts::to_string does (gone from later releases)
    key << p.unsafeGetTensorImpl();
    return key.str();
  } else {
    return reinterpret_cast<Key>(p.unsafeGetTensorImpl());
  }
}

}  // namespace

std::string checkpoint_path(const std::string& dir, int64_t step) {
  std::ostringstream s;
  s << dir << "/step" << std::setw(6) << std::setfill('0') << step << ".safetensors";
  return s.str();
}

std::string sidecar_path(const std::string& weights_path) {
  const std::string ext = ".safetensors";
  if (weights_path.size() > ext.size() && weights_path.compare(weights_path.size() - ext.size(), ext.size(), ext) == 0)
    return weights_path.substr(0, weights_path.size() - ext.size()) + ".json";
  return weights_path + ".json";
}

std::string optimizer_path(const std::string& weights_path) {
  const std::string side = sidecar_path(weights_path);
  return side.substr(0, side.size() - 5) + ".optim.safetensors";
}

void save_checkpoint(const std::string& dir, const model::Transformer& model, const RunConfig& cfg, int64_t step,
                     const nlohmann::json& extra) {
  fs::create_directories(dir);
  StFile file;
  file.metadata = {{"format", "pt"}, {"producer", "claimcheck"}, {"step", std::to_string(step)}};
  for (const auto& [name, t] : model.named_parameters()) file.tensors.emplace_back(name, safetensors_tensor(t));
  const std::string path = checkpoint_path(dir, step);
  write_safetensors(path, file);

  nlohmann::json side = {{"format", "claimcheck-checkpoint/1"},
                         {"weights", fs::path(path).filename().string()},
                         {"sha256", sha256_file(path)},
                         {"step", step},
                         {"seed", cfg.seed},
                         {"config", cfg.to_json()},
                         {"config_hash", cfg.weights_hash()},
                         {"created", utc_now_iso8601()}};
  if (extra.is_object()) side.update(extra);
  write_file_atomic(sidecar_path(path), side.dump(2) + "\n");
}

Checkpoint load_checkpoint(const std::string& weights_path, const torch::Device& device) {
  Checkpoint ck;
  ck.path = weights_path;
  const std::string side_path = sidecar_path(weights_path);
  if (!std::filesystem::exists(side_path))
    throw Error(weights_path + ": missing sidecar " + side_path + " (config, seed, sha256)");
  try {
    ck.sidecar = parse_json(read_regular_file(side_path, kMaxJsonBytes, "sidecar"), side_path);
  } catch (const nlohmann::json::exception& e) {
    throw Error(side_path + ": sidecar is not valid JSON: " + e.what());
  }
  try {
    ck.config = RunConfig::from_json(ck.sidecar.at("config"));
    ck.step = json_int64(ck.sidecar.at("step"), "step");
  } catch (const nlohmann::json::exception& e) {
    throw Error(side_path + ": sidecar lacks a valid config/step: " + e.what());
  } catch (const Error& e) {
    throw Error(side_path + ": sidecar config is invalid: " + e.what());
  }
  const StFile file = read_safetensors(weights_path);  // structural checks first: clearer errors
  if (ck.sidecar.contains("sha256")) {
    const std::string actual = sha256_file(weights_path);
    if (actual != ck.sidecar["sha256"].get<std::string>())
      throw Error(weights_path + ": sha256 " + actual + " does not match the sidecar's " +
                  ck.sidecar["sha256"].get<std::string>() + " (file corrupted or replaced)");
  }
  std::map<std::string, torch::Tensor> values;
  for (const auto& [name, t] : file.tensors) values[name] = weights_tensor(weights_path, name, t);
  ck.model = std::make_shared<model::Transformer>(ck.config.model);
  try {
    ck.model->load(values);
  } catch (const Error& e) {
    throw Error(weights_path + ": " + e.what());
  }
  ck.model->to(device);
  return ck;
}

bool get_adam_state(const torch::optim::Optimizer& opt, const torch::Tensor& p, AdamMoment& out) {
  const auto& state = opt.state();
  auto it = state.find(state_key(state, p));
  if (it == state.end()) return false;  // no step taken yet
  const auto& s = static_cast<const torch::optim::AdamWParamState&>(*it->second);
  out.exp_avg = s.exp_avg();
  out.exp_avg_sq = s.exp_avg_sq();
  out.step = s.step();
  return true;
}

void set_adam_state(torch::optim::Optimizer& opt, const torch::Tensor& p, const AdamMoment& m) {
  auto s = std::make_unique<torch::optim::AdamWParamState>();
  s->step(m.step);
  s->exp_avg(m.exp_avg.to(p.device()));
  s->exp_avg_sq(m.exp_avg_sq.to(p.device()));
  auto& state = opt.state();
  state[state_key(state, p)] = std::move(s);
}

namespace {

// The optimizer file's own checksum, kept in its metadata: sha256 over every tensor's name, dtype, shape
// and bytes in file order. The weights are checked against their sidecar; without this, one flipped byte
// of a resume point's optimizer state trained on into a different model, silently.
std::string state_digest(const StFile& file) {
  std::string all;
  for (const auto& [name, t] : file.tensors) {
    all += name + '\0' + t.dtype + '\0';
    for (const int64_t d : t.shape) all += std::to_string(d) + ",";
    all += '\0';
    all += t.bytes;
  }
  return sha256_hex(all);
}

void seal(StFile& file) { file.metadata["state_sha256"] = state_digest(file); }

// An optimizer file as read for its state: checked against its own checksum (files written before the
// checksum existed have none and are read as they are).
StFile read_sealed(const std::string& path) {
  StFile file = read_safetensors(path);
  const auto it = file.metadata.find("state_sha256");
  if (it != file.metadata.end() && it->second != state_digest(file))
    throw Error(path +
                ": the optimizer state's sha256 differs from the one written into it (the file changed "
                "after it was written); delete it to resume from the resume point before, or retrain");
  return file;
}

}  // namespace

void write_optimizer(const std::string& weights_path, const std::vector<std::pair<std::string, AdamMoment>>& moments) {
  StFile file;
  int64_t step = 0;
  for (const auto& [name, m] : moments) {
    file.tensors.emplace_back(name + ".exp_avg", safetensors_tensor(m.exp_avg));
    file.tensors.emplace_back(name + ".exp_avg_sq", safetensors_tensor(m.exp_avg_sq));
    step = m.step;
  }
  file.metadata = {{"optimizer", "AdamW"}, {"adam_step", std::to_string(step)}};
  seal(file);
  write_safetensors(optimizer_path(weights_path), file);
}

namespace {

// The AdamW moments in `file` (read from `path`) of every parameter of `model`.
std::map<std::string, AdamMoment> adam_moments(const std::string& path, const StFile& file,
                                               const model::Transformer& model) {
  auto it = file.metadata.find("adam_step");
  if (it == file.metadata.end()) throw Error(path + ": optimizer state lacks its 'adam_step' metadata");
  const int64_t step = std::stoll(it->second);
  std::map<std::string, AdamMoment> out;
  for (const auto& [name, p] : model.named_parameters()) {
    const StTensor* m = file.find(name + ".exp_avg");
    const StTensor* v = file.find(name + ".exp_avg_sq");
    if (!m || !v) {
      if (step == 0 || !p.requires_grad()) continue;  // no step yet, or a frozen parameter
      throw Error(path + ": optimizer state lacks the moments of '" + name + "'");
    }
    AdamMoment am{weights_tensor(path, name + ".exp_avg", *m), weights_tensor(path, name + ".exp_avg_sq", *v), step};
    if (am.exp_avg.sizes() != p.sizes() || am.exp_avg_sq.sizes() != p.sizes())
      throw Error(path + ": moment shape of '" + name + "' does not match the model");
    out[name] = am;
  }
  return out;
}

// SGD's state: a momentum buffer per trained parameter (none before the first step or without momentum).
void save_sgd_state(const std::string& weights_path, const torch::optim::Optimizer& opt,
                    const model::Transformer& model) {
  StFile file;
  const auto& state = opt.state();
  for (const auto& [name, p] : model.named_parameters()) {
    auto it = state.find(state_key(state, p));
    if (it == state.end()) continue;
    const auto& s = static_cast<const torch::optim::SGDParamState&>(*it->second);
    file.tensors.emplace_back(name + ".momentum_buffer", safetensors_tensor(s.momentum_buffer()));
  }
  file.metadata = {{"optimizer", "SGD"}};
  seal(file);
  write_safetensors(optimizer_path(weights_path), file);
}

void load_sgd_state(const std::string& path, const StFile& file, torch::optim::Optimizer& opt,
                    const model::Transformer& model) {
  auto& state = opt.state();
  for (const auto& [name, p] : model.named_parameters()) {
    const StTensor* b = file.find(name + ".momentum_buffer");
    if (!b) continue;  // frozen, or no step taken yet
    auto buf = weights_tensor(path, name + ".momentum_buffer", *b);
    if (buf.sizes() != p.sizes())
      throw Error(path + ": momentum buffer shape of '" + name + "' does not match the model");
    auto s = std::make_unique<torch::optim::SGDParamState>();
    s->momentum_buffer(buf.to(p.device()));
    state[state_key(state, p)] = std::move(s);
  }
}

}  // namespace

std::map<std::string, AdamMoment> read_optimizer(const std::string& weights_path, const model::Transformer& model) {
  const std::string path = optimizer_path(weights_path);
  return adam_moments(path, read_sealed(path), model);
}

void save_optimizer(const std::string& weights_path, const torch::optim::Optimizer& opt,
                    const model::Transformer& model) {
  if (dynamic_cast<const torch::optim::SGD*>(&opt)) return save_sgd_state(weights_path, opt, model);
  std::vector<std::pair<std::string, AdamMoment>> moments;
  for (const auto& [name, p] : model.named_parameters()) {
    AdamMoment m;
    if (get_adam_state(opt, p, m)) moments.emplace_back(name, m);
  }
  write_optimizer(weights_path, moments);
}

void load_optimizer(const std::string& weights_path, torch::optim::Optimizer& opt, const model::Transformer& model) {
  const std::string path = optimizer_path(weights_path);
  const bool sgd_opt = dynamic_cast<const torch::optim::SGD*>(&opt) != nullptr;
  const StFile file = read_sealed(path);
  const auto kind = file.metadata.find("optimizer");
  const bool sgd_file = kind != file.metadata.end() && kind->second == "SGD";
  if (sgd_opt != sgd_file)
    throw Error(path + ": holds the state of " + (sgd_file ? "SGD" : "AdamW") + ", the run trains with " +
                (sgd_opt ? "SGD" : "AdamW"));
  if (sgd_opt) return load_sgd_state(path, file, opt, model);
  const auto moments = adam_moments(path, file, model);
  for (const auto& [name, p] : model.named_parameters()) {
    auto it = moments.find(name);
    if (it != moments.end()) set_adam_state(opt, p, it->second);
  }
}

int64_t find_resume_point(const std::string& dir, const RunConfig& cfg, bool resume) {
  // A save interrupted between the weights and their sidecar leaves weights no sidecar describes: not
  // a checkpoint of this run (the next save of that step replaces them), and no reason to refuse it.
  std::vector<int64_t> steps;
  for (int64_t s : list_checkpoints(dir))
    if (fs::exists(sidecar_path(checkpoint_path(dir, s)))) steps.push_back(s);
  if (steps.empty()) return 0;
  // Never mix runs: whatever is in dir must come from this exact config.
  const std::string first = checkpoint_path(dir, steps.front());
  nlohmann::json side =
      parse_json(read_regular_file(sidecar_path(first), kMaxJsonBytes, "sidecar"), sidecar_path(first), false);
  if (side.is_discarded() || side.value("config_hash", "") != cfg.weights_hash())
    throw Error(dir + ": holds checkpoints of a different run config (config_hash " +
                (side.is_discarded() ? std::string("unreadable") : side.value("config_hash", "missing")) + " vs " +
                cfg.weights_hash() + "); choose another --out directory");
  if (!resume) throw Error(dir + ": already holds checkpoints; pass --resume or choose another --out");
  for (auto it = steps.rbegin(); it != steps.rend(); ++it)
    if (fs::exists(optimizer_path(checkpoint_path(dir, *it)))) return *it;
  return 0;
}

void drop_resume_point(const std::string& dir, int64_t step, const RunConfig& cfg) {
  const std::string prev = checkpoint_path(dir, step);
  fs::remove(optimizer_path(prev));
  if (!cfg.train.keeps_checkpoint(step)) {
    fs::remove(prev);
    fs::remove(sidecar_path(prev));
  }
}

std::vector<int64_t> list_checkpoints(const std::string& dir) {
  std::vector<int64_t> steps;
  if (!fs::is_directory(dir)) return steps;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string f = entry.path().filename().string();
    if (f.size() == 4 + 6 + 12 && f.rfind("step", 0) == 0 && f.substr(10) == ".safetensors") {
      try {
        steps.push_back(std::stoll(f.substr(4, 6)));
      } catch (...) {
      }
    }
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

}  // namespace cc::train
