#include "analysis/activation_store.h"

#include <torch/torch.h>

#include <tuple>

#include "analysis/common.h"
#include "train/builtin_task.h"

namespace cc::analysis {
namespace {

size_t cache_bytes(const model::ActivationCache& c) {
  size_t n = 0;
  for (const auto& name : c.names()) n += c[name].nbytes();
  return n;
}

// Runs the model over one set's examples in chunks, keeping `hooks` (each its own storage, so the
// byte count is what the entry holds).
std::shared_ptr<SetActivations> run_set(const model::Transformer& model, std::vector<task::Example> examples,
                                        const std::set<HookRead>& hooks) {
  torch::NoGradGuard no_grad;
  auto out = std::make_shared<SetActivations>();
  out->examples = std::move(examples);
  out->hooks = hooks;
  const size_t chunk = static_cast<size_t>(ActivationStore::kChunk);
  for (size_t begin = 0; begin < out->examples.size(); begin += chunk) {
    const size_t end = std::min(out->examples.size(), begin + chunk);
    const std::vector<task::Example> part(out->examples.begin() + static_cast<std::ptrdiff_t>(begin),
                                          out->examples.begin() + static_cast<std::ptrdiff_t>(end));
    model::ActivationCache full;
    model.run_with_cache(train::tokens_tensor(part), full);
    SetActivations::Chunk c{begin, end, {}};
    for (const auto& h : hooks) {
      const torch::Tensor& all = full[h.hook];  // throws, naming the hooks there are, for an unknown one
      const torch::Tensor t = h.position < 0 ? all : all.select(1, h.position);
      c.cache.put(h.key(), t.storage().nbytes() == t.nbytes() && t.is_contiguous() ? t : t.clone());
    }
    out->bytes += cache_bytes(c.cache);
    out->chunks.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::string HookRead::key() const { return position < 0 ? hook : hook + "[:, " + std::to_string(position) + "]"; }

bool HookRead::operator<(const HookRead& o) const { return std::tie(hook, position) < std::tie(o.hook, o.position); }

void Activations::for_each(
    const std::function<void(const model::ActivationCache&, const std::vector<task::Example>&)>& fn) const {
  for (const auto& s : sets)
    for (const auto& c : s->chunks)
      fn(c.cache, std::vector<task::Example>(s->examples.begin() + static_cast<std::ptrdiff_t>(c.begin),
                                             s->examples.begin() + static_cast<std::ptrdiff_t>(c.end)));
}

std::vector<task::Example> Activations::examples() const {
  std::vector<task::Example> out;
  for (const auto& s : sets) out.insert(out.end(), s->examples.begin(), s->examples.end());
  return out;
}

bool ActivationStore::Key::operator<(const Key& o) const {
  return std::tie(model, set, size, seed) < std::tie(o.model, o.set, o.size, o.seed);
}

ActivationStore::ActivationStore(size_t max_bytes) : max_bytes_(max_bytes) {}

void ActivationStore::want(const std::vector<HookRead>& hooks) {
  std::lock_guard<std::mutex> lock(mu_);
  wanted_.insert(hooks.begin(), hooks.end());
}

ActivationStore::Stats ActivationStore::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

Activations ActivationStore::get(const train::Checkpoint& ck, const std::vector<std::string>& sets, int size,
                                 uint64_t seed, const std::vector<HookRead>& hooks) {
  const std::set<HookRead> asked(hooks.begin(), hooks.end());
  Activations out;
  for (const auto& set : sets) out.sets.push_back(get_set(ck, Key{ck.model.get(), set, size, seed}, asked));
  return out;
}

std::shared_ptr<const SetActivations> ActivationStore::get_set(const train::Checkpoint& ck, const Key& key,
                                                               const std::set<HookRead>& asked) {
  // The kept entry when it is still its model's and holds every hook asked for (mu_ held), else nullptr.
  auto kept = [&]() -> std::shared_ptr<const SetActivations> {
    auto it = slots_.find(key);
    if (it == slots_.end() || it->second.owner.expired()) return nullptr;
    for (const auto& h : asked)
      if (!it->second.value->hooks.count(h)) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    ++stats_.hits;
    return it->second.value;
  };
  std::shared_ptr<std::mutex> key_lock;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto value = kept()) return value;
    auto& kl = key_locks_[key];
    if (!kl) kl = std::make_shared<std::mutex>();
    key_lock = kl;
  }
  // One thread runs this key's forward; the others wait here, then find its result.
  std::lock_guard<std::mutex> computing(*key_lock);
  std::set<HookRead> keep;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto value = kept()) return value;
    wanted_.insert(asked.begin(), asked.end());
    keep = wanted_;
  }
  task::Sampler sampler(ck.config.task);
  auto value = run_set(*ck.model, task::make_eval_set(sampler, key.set, key.size, key.seed).examples, keep);
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.forwards;
  auto it = slots_.find(key);
  if (it != slots_.end()) {  // a narrower or stale entry: replaced
    stats_.bytes -= it->second.value->bytes;
    lru_.erase(it->second.lru);
    slots_.erase(it);
  }
  lru_.push_front(key);
  slots_[key] = Slot{ck.model, value, lru_.begin()};
  stats_.bytes += value->bytes;
  stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.bytes);
  evict_locked();
  return value;
}

// Least recently used first, never the entry just added (it is at the front).
void ActivationStore::evict_locked() {
  while (stats_.bytes > max_bytes_ && lru_.size() > 1) {
    const Key victim = lru_.back();
    lru_.pop_back();
    auto it = slots_.find(victim);
    stats_.bytes -= it->second.value->bytes;
    slots_.erase(it);
    ++stats_.evictions;
  }
}

Activations activations(ActivationStore* store, const train::Checkpoint& ck, const std::vector<std::string>& sets,
                        int size, uint64_t seed, const std::vector<HookRead>& hooks) {
  if (store) return store->get(ck, sets, size, seed, hooks);
  ActivationStore once(0);  // keeps nothing past this call (each set's entry is evicted by the next)
  return once.get(ck, sets, size, seed, hooks);
}

}  // namespace cc::analysis
