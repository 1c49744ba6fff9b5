#include "analysis/activation_store.h"

#include <torch/torch.h>

#include <tuple>

#include "analysis/common.h"
#include "train/task_data.h"

namespace cc::analysis {
namespace {

size_t cache_bytes(const model::ActivationCache& c) {
  size_t n = 0;
  for (const auto& name : c.names()) n += c[name].nbytes();
  return n;
}

// Runs the model over one set's sequences in chunks, keeping `hooks` (each its own storage, so the
// byte count is what the entry holds).
std::shared_ptr<SetActivations> run_set(const model::Transformer& model, torch::Tensor tokens,
                                        const std::set<HookRead>& hooks) {
  torch::NoGradGuard no_grad;
  auto out = std::make_shared<SetActivations>();
  out->tokens = std::move(tokens);
  out->hooks = hooks;
  const size_t rows = static_cast<size_t>(out->tokens.size(0));
  const size_t chunk = static_cast<size_t>(ActivationStore::kChunk);
  for (size_t begin = 0; begin < rows; begin += chunk) {
    const size_t end = std::min(rows, begin + chunk);
    model::ActivationCache full;
    model.run_with_cache(out->tokens.slice(0, static_cast<int64_t>(begin), static_cast<int64_t>(end)), full);
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

void Activations::for_each(const std::function<void(const model::ActivationCache&, size_t, size_t)>& fn) const {
  size_t offset = 0;  // rows of the sets before this one
  for (const auto& s : sets) {
    for (const auto& c : s->chunks) fn(c.cache, offset + c.begin, offset + c.end);
    offset += static_cast<size_t>(s->tokens.size(0));
  }
}

size_t Activations::rows() const {
  size_t n = 0;
  for (const auto& s : sets) n += static_cast<size_t>(s->tokens.size(0));
  return n;
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
  auto value =
      run_set(*ck.model, train::make_task_data(ck.config)->eval_set(key.set, key.size, key.seed).batch.tokens, keep);
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
