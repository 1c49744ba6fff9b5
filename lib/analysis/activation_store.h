#pragma once
// Forward passes, and values derived from one checkpoint, shared across claims. Many claims measure
// the same checkpoint on the same test sequences (M1-M3 read attention patterns, M4-M6 residuals,
// M8a/M8b MLP pre-activations): the store runs each (checkpoint, evaluation set, size, seed) forward
// once and hands the activations to every kind that asks, from any thread. Likewise a value computed
// from the checkpoint alone (the grokking paper's key frequencies, read by seven of its claims) is
// computed once per checkpoint and name (derived()), and so is a §7 theory claim's Monte Carlo
// computation that two claims read in two ways (named by its parameters).
//
// What is kept: the hooks the kinds declare they read (MeasurementKind::reads, given to want()) and any
// other asked for (a request for a hook not kept reruns that forward once, keeping both); a hook read
// at one position is kept at that position only, and a forward computes only what its hooks need
// (model::Transformer::record: no unembedding, the last block's queries, attention, output and MLP only
// at the positions read).
// Lifetime: an entry (a set's activations or a derived value) lives while its checkpoint's model does
// (a value no checkpoint owns, while the store does) and until the store's byte budget evicts it
// (least recently used first); the store lives for one verify.
// Bits: each set is run on its own, in chunks of kChunk sequences, and each read's value is computed
// apart from the others' (record), so a sequence's activations do not depend on which other sets,
// hooks or claims asked; with or without a store the numbers are the same.
#include <cstddef>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <typeindex>
#include <vector>

#include "model/transformer.h"
#include "train/checkpoint.h"
#include "util/work_pool.h"

namespace cc::analysis {

// A hook as a kind reads it: at every position, or at one position only (model/transformer.h).
using HookRead = model::HookRead;

// One evaluation set's sequences and the chosen activations on them, in chunks.
struct SetActivations {
  struct Chunk {
    size_t begin = 0, end = 0;     // rows [begin, end) of tokens
    model::ActivationCache cache;  // the kept hooks, [end - begin, ...] each
  };
  torch::Tensor tokens;  // [R, T] int64: the set's sequences (train::TaskData::eval_set)
  std::vector<Chunk> chunks;
  std::set<HookRead> hooks;  // what every chunk's cache holds
  size_t bytes = 0;
};

// The sample a kind reads: several sets, in the order asked.
struct Activations {
  std::vector<std::shared_ptr<const SetActivations>> sets;
  // fn(cache, begin, end), set by set, chunk by chunk: the chunk holds rows [begin, end) of the sets'
  // sequences taken one after the other (a kind that needs more of a sequence than its tokens gets
  // its task's sequences in the same order, e.g. papers/assign_and_add/module/examples.h).
  void for_each(const std::function<void(const model::ActivationCache&, size_t begin, size_t end)>& fn) const;
  size_t rows() const;  // every set's sequences
};

// What derived() keeps: a value and the bytes it holds (counted against the store's budget).
template <class T>
struct Derived {
  T value;
  size_t bytes = 0;
};

class ActivationStore {
 public:
  static constexpr int kChunk = 500;  // keeps [chunk, T, d_mlp] under glibc's 32 MB mmap ceiling
  explicit ActivationStore(size_t max_bytes);

  // Hooks to keep from every forward from now on, whether or not the request that runs it asks for
  // them: the reads of every kind a verify will measure, so that each forward runs once.
  void want(const std::vector<HookRead>& hooks);

  // `hooks` of `ck` on each of `sets`, its task's evaluation sets (train::TaskData::eval_set with `size`
  // and `seed`): from the store, else computed (once, whichever thread asks first) and kept.
  Activations get(const train::Checkpoint& ck, const std::vector<std::string>& sets, int size, uint64_t seed,
                  const std::vector<HookRead>& hooks);

  // A value computed from `ck` alone and named by everything else it depends on (the kind's
  // parameters that change it, e.g. "nanda_grokking.neuron_frequencies min_share=0.05"): from the
  // store, else made (once, whichever thread asks first) and kept. Two types under one name of one
  // checkpoint are a programming error (cc::Error).
  template <class T>
  std::shared_ptr<const T> derived(const train::Checkpoint& ck, const std::string& name,
                                   const std::function<Derived<T>()>& make) {
    return std::static_pointer_cast<const T>(get_derived(&ck, name, typeid(T), erase(make)));
  }
  // A value no checkpoint owns, made from what its name says alone (a theory kind's Monte Carlo
  // terms, named by its parameters and seed, that two claims read in different ways).
  template <class T>
  std::shared_ptr<const T> derived(const std::string& name, const std::function<Derived<T>()>& make) {
    return std::static_pointer_cast<const T>(get_derived(nullptr, name, typeid(T), erase(make)));
  }

  // A thread that waits for another's forward or value runs `pool`'s items meanwhile (other claims'
  // seeds) instead of idling; nullptr: it waits. Only a thread that holds no key of the store helps (one
  // computing a value from another, e.g. key frequencies from grid preactivations, waits plainly), so
  // no two threads can wait for each other. Set for the life of `pool`, then reset.
  void help_while_waiting(WorkPool* pool);
  WorkPool* pool() const;  // the pool set by help_while_waiting, or nullptr

  struct Stats {
    size_t hits = 0, forwards = 0, evictions = 0, bytes = 0, peak_bytes = 0;
    size_t derived_made = 0, derived_hits = 0;
  };
  Stats stats() const;

 private:
  struct Key {
    const model::Transformer* model;
    bool derived;     // a derived value (`set` is its name) or a set's activations
    std::string set;  // the evaluation set, or the derived value's name
    int size;
    uint64_t seed;
    bool operator<(const Key& o) const;
  };
  struct Slot {
    bool owned;                               // by a checkpoint's model (else by nothing: kept while the store lives)
    std::weak_ptr<model::Transformer> owner;  // an expired owner means the address may be reused
    std::shared_ptr<const void> value;        // SetActivations, or a derived value of `type`
    std::type_index type;
    size_t bytes;
    std::list<Key>::iterator lru;
  };
  using MakeAny = std::function<std::pair<std::shared_ptr<const void>, size_t>()>;
  template <class T>
  static MakeAny erase(const std::function<Derived<T>()>& make) {
    return [&make] {
      Derived<T> d = make();
      return std::make_pair(std::shared_ptr<const void>(std::make_shared<const T>(std::move(d.value))), d.bytes);
    };
  }
  // What an entry is made of: its value (SetActivations, or a derived value of `type`) and its bytes.
  struct Entry {
    std::shared_ptr<const void> value;
    std::type_index type;
    size_t bytes;
  };
  using MakeEntry = std::function<Entry()>;
  // The entry under `key`: `kept` (called with mu_ held) when it serves, else made by `make` (outside
  // mu_, one thread per key; the others wait for it, helping the pool) and kept, counting `made`.
  std::shared_ptr<const void> get_or_make(const train::Checkpoint* ck, const Key& key,
                                          const std::function<std::shared_ptr<const void>()>& kept,
                                          const MakeEntry& make, size_t& made);
  std::shared_ptr<const SetActivations> get_set(const train::Checkpoint& ck, const Key& key,
                                                const std::set<HookRead>& hooks);
  // `ck` nullptr: a value no checkpoint owns.
  std::shared_ptr<const void> get_derived(const train::Checkpoint* ck, const std::string& name, std::type_index type,
                                          const MakeAny& make);
  // The entry under `key` when it is still its model's and `accept` takes it (mu_ held; it becomes
  // the most recently used), else nullptr.
  std::shared_ptr<const void> kept_locked(const Key& key, const std::function<bool(const Slot&)>& accept);
  // The lock that lets one thread at a time compute `key`'s entry (mu_ held).
  std::shared_ptr<std::mutex> key_lock_locked(const Key& key);
  // Keeps `value` under `key`, replacing what was there, and evicts down to the budget (mu_ held).
  void keep_locked(const train::Checkpoint* ck, const Key& key, std::shared_ptr<const void> value, std::type_index type,
                   size_t bytes);
  void evict_locked();
  // Holds one key's lock for its computation (helping the pool while it waits, see help_while_waiting).
  class KeyHold {
   public:
    KeyHold(ActivationStore& store, std::mutex& key);
    ~KeyHold();
    KeyHold(const KeyHold&) = delete;
    KeyHold& operator=(const KeyHold&) = delete;

   private:
    ActivationStore& store_;
    std::mutex& key_;
  };

  size_t max_bytes_;
  WorkPool* pool_ = nullptr;
  mutable std::mutex mu_;
  std::map<Key, Slot> slots_;
  std::list<Key> lru_;                                    // front: most recently used
  std::set<HookRead> wanted_;                             // declared or asked for so far: a new forward keeps them all
  std::map<Key, std::shared_ptr<std::mutex>> key_locks_;  // one forward at a time per key
  Stats stats_;
};

// `hooks` of the checkpoint on `sets`: through `store` when there is one, else computed for this call.
Activations activations(ActivationStore* store, const train::Checkpoint& ck, const std::vector<std::string>& sets,
                        int size, uint64_t seed, const std::vector<HookRead>& hooks);

// A derived value of the checkpoint: through `store` when there is one, else made for this call.
template <class T>
std::shared_ptr<const T> derived(ActivationStore* store, const train::Checkpoint& ck, const std::string& name,
                                 const std::function<Derived<T>()>& make) {
  if (store) return store->derived<T>(ck, name, make);
  return std::make_shared<const T>(make().value);
}
// The same for a value no checkpoint owns.
template <class T>
std::shared_ptr<const T> derived(ActivationStore* store, const std::string& name,
                                 const std::function<Derived<T>()>& make) {
  if (store) return store->derived<T>(name, make);
  return std::make_shared<const T>(make().value);
}

// fn(i) for every i in [0, n): at once on `pool`'s threads, else (nullptr) in turn. For the independent
// parts of one result (a claim's seeds, a Monte Carlo estimate's batches), written each into its own
// slot and combined in index order, so the result does not depend on the threads. Every item runs in
// its caller's grad mode, whichever thread runs it (a helper may be inside another claim's
// NoGradGuard). An item must not wait for anything but its own work. The first exception in index
// order is rethrown once every item has returned.
void parallel_for(WorkPool* pool, size_t n, const std::function<void(size_t)>& fn);
// The same on the pool of the verification that `store` serves (help_while_waiting), if any.
void parallel_for(ActivationStore* store, size_t n, const std::function<void(size_t)>& fn);

}  // namespace cc::analysis
