#include "analysis/activation_store.h"

#include <torch/torch.h>

#include <algorithm>
#include <exception>
#include <tuple>

#include "analysis/common.h"
#include "train/task_data.h"
#include "util/error.h"

namespace cc::analysis {
namespace {

// The keys this thread holds (is computing): a thread that holds one never helps while it waits.
thread_local int held_keys = 0;

size_t cache_bytes(const model::ActivationCache& c) {
  size_t n = 0;
  for (const auto& name : c.names()) n += c[name].nbytes();
  return n;
}

// Runs the model over one set's sequences in chunks, keeping `hooks` (each its own storage, so the
// byte count is what the entry holds) and computing only what they need (Transformer::record).
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
    SetActivations::Chunk c{
        begin, end, model.record(out->tokens.slice(0, static_cast<int64_t>(begin), static_cast<int64_t>(end)), hooks)};
    out->bytes += cache_bytes(c.cache);
    out->chunks.push_back(std::move(c));
  }
  return out;
}

}  // namespace

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
  return std::tie(model, derived, set, size, seed) < std::tie(o.model, o.derived, o.set, o.size, o.seed);
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
  for (const auto& set : sets)
    out.sets.push_back(get_set(ck, Key{ck.model.get(), /*derived=*/false, set, size, seed}, asked));
  return out;
}

std::shared_ptr<const void> ActivationStore::kept_locked(const Key& key,
                                                         const std::function<bool(const Slot&)>& accept) {
  auto it = slots_.find(key);
  if (it == slots_.end() || (it->second.owned && it->second.owner.expired()) || !accept(it->second)) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return it->second.value;
}

void ActivationStore::help_while_waiting(WorkPool* pool) {
  std::lock_guard<std::mutex> lock(mu_);
  pool_ = pool;
}

WorkPool* ActivationStore::pool() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pool_;
}

ActivationStore::KeyHold::KeyHold(ActivationStore& store, std::mutex& key) : store_(store), key_(key) {
  WorkPool* pool;
  {
    std::lock_guard<std::mutex> lock(store.mu_);
    pool = store.pool_;
  }
  if (pool && held_keys == 0) {
    pool->help_until([&] { return key.try_lock(); });
  } else {
    key.lock();
  }
  ++held_keys;
}

ActivationStore::KeyHold::~KeyHold() {
  key_.unlock();
  --held_keys;
  std::lock_guard<std::mutex> lock(store_.mu_);
  if (store_.pool_) store_.pool_->notify();  // a helper waiting for this key checks again
}

std::shared_ptr<std::mutex> ActivationStore::key_lock_locked(const Key& key) {
  auto& kl = key_locks_[key];
  if (!kl) kl = std::make_shared<std::mutex>();
  return kl;
}

void ActivationStore::keep_locked(const train::Checkpoint* ck, const Key& key, std::shared_ptr<const void> value,
                                  std::type_index type, size_t bytes) {
  auto it = slots_.find(key);
  if (it != slots_.end()) {  // a narrower or stale entry: replaced
    stats_.bytes -= it->second.bytes;
    lru_.erase(it->second.lru);
    slots_.erase(it);
  }
  lru_.push_front(key);
  std::weak_ptr<model::Transformer> owner;
  if (ck) owner = ck->model;
  slots_.emplace(key, Slot{ck != nullptr, owner, std::move(value), type, bytes, lru_.begin()});
  stats_.bytes += bytes;
  stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.bytes);
  evict_locked();
}

std::shared_ptr<const void> ActivationStore::get_or_make(const train::Checkpoint* ck, const Key& key,
                                                         const std::function<std::shared_ptr<const void>()>& kept,
                                                         const MakeEntry& make, size_t& made) {
  std::shared_ptr<std::mutex> key_lock;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto value = kept()) return value;
    key_lock = key_lock_locked(key);
  }
  // One thread makes this key's entry; the others wait here (helping the pool), then find it.
  const KeyHold computing(*this, *key_lock);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto value = kept()) return value;
  }
  const Entry e = make();  // outside mu_: other keys go on meanwhile; an exception keeps nothing
  std::lock_guard<std::mutex> lock(mu_);
  ++made;
  keep_locked(ck, key, e.value, e.type, e.bytes);
  return e.value;
}

std::shared_ptr<const SetActivations> ActivationStore::get_set(const train::Checkpoint& ck, const Key& key,
                                                               const std::set<HookRead>& asked) {
  // The kept entry when it holds every hook asked for.
  auto kept = [&] {
    auto value = kept_locked(key, [&](const Slot& slot) {
      const auto& held = static_cast<const SetActivations*>(slot.value.get())->hooks;
      return std::all_of(asked.begin(), asked.end(), [&](const HookRead& h) { return held.count(h) > 0; });
    });
    if (value) ++stats_.hits;
    return value;
  };
  auto make = [&] {
    std::set<HookRead> keep;
    {
      std::lock_guard<std::mutex> lock(mu_);
      wanted_.insert(asked.begin(), asked.end());
      keep = wanted_;
    }
    auto value =
        run_set(*ck.model, train::make_task_data(ck.config)->eval_set(key.set, key.size, key.seed).batch.tokens, keep);
    return Entry{value, typeid(SetActivations), value->bytes};
  };
  return std::static_pointer_cast<const SetActivations>(get_or_make(&ck, key, kept, make, stats_.forwards));
}

std::shared_ptr<const void> ActivationStore::get_derived(const train::Checkpoint* ck, const std::string& name,
                                                         std::type_index type, const MakeAny& make) {
  const Key key{ck ? ck->model.get() : nullptr, /*derived=*/true, name, 0, 0};
  auto kept = [&] {
    auto value = kept_locked(key, [&](const Slot& slot) {
      if (slot.type != type)
        throw Error("derived value '" + name + "'" + (ck ? " of " + ck->path : std::string()) +
                    " asked for as two types");
      return true;
    });
    if (value) ++stats_.derived_hits;
    return value;
  };
  return get_or_make(
      ck, key, kept,
      [&] {
        auto [value, bytes] = make();
        return Entry{value, type, bytes};
      },
      stats_.derived_made);
}

// Least recently used first, never the entry just added (it is at the front).
void ActivationStore::evict_locked() {
  while (stats_.bytes > max_bytes_ && lru_.size() > 1) {
    const Key victim = lru_.back();
    lru_.pop_back();
    auto it = slots_.find(victim);
    stats_.bytes -= it->second.bytes;
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

void parallel_for(WorkPool* pool, size_t n, const std::function<void(size_t)>& fn) {
  std::vector<std::exception_ptr> errors(n);
  const bool grad = torch::GradMode::is_enabled();
  auto run = [&](size_t i) {
    try {
      torch::AutoGradMode as_caller(grad);
      fn(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  if (pool) {
    pool->parallel_for(n, run);
  } else {
    for (size_t i = 0; i < n; ++i) run(i);
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

void parallel_for(ActivationStore* store, size_t n, const std::function<void(size_t)>& fn) {
  parallel_for(store ? store->pool() : nullptr, n, fn);
}

}  // namespace cc::analysis
