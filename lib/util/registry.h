#pragma once
// One registry type for everything a plugin registers by name (measurement kinds, task families), in
// the manner of lm-evaluation-harness's Registry: each entry records where it came from (its origin:
// the engine or papers/NAME/module), a second entry of a name is an error naming both origins, an
// unknown name lists what exists and the nearest match, and once frozen (when the first claim or run
// is read) a late registration is an error instead of an entry silently missed.
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "util/error.h"

namespace cc {

// The name in `names` nearest to `name`: one that starts with it (M8 -> M8a), else the nearest by edit
// distance within a third of its length (at least 2 edits); "" when none is a plausible typo.
std::string nearest_name(const std::string& name, const std::vector<std::string>& names);

// ", did you mean 'X'?" (up to three equally near: "'M8a' or 'M8b'") or "", for error messages.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& names);

template <class T>
class NamedRegistry {
 public:
  explicit NamedRegistry(std::string what) : what_(std::move(what)) {}

  // Throws cc::Error on a name registered before (naming both origins) or after freeze().
  void add(const std::string& name, T value, const std::string& origin) {
    std::lock_guard<std::mutex> lock(mu_);
    if (frozen_)
      throw Error(what_ + " '" + name + "' from " + origin + " is registered after the registry was frozen (" +
                  frozen_by_ + "): a module registers at start-up, before any claim or run is read");
    auto it = entries_.find(name);
    if (it != entries_.end())
      throw Error(what_ + " '" + name + "' is registered twice: by " + it->second.origin + " and by " + origin);
    entries_.emplace(name, Entry{std::move(value), origin});
  }

  // nullptr for an unknown name (entries are never removed, so the pointer stays valid).
  const T* find(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second.value;
  }

  // Throws cc::Error for an unknown name, listing the registered ones and the nearest match.
  const T& get(const std::string& name) const {
    if (const T* v = find(name)) return *v;
    throw Error(unknown_message(name));
  }

  // "unknown WHAT 'x' (registered: a, b, c), did you mean 'y'?"
  std::string unknown_message(const std::string& name) const {
    const std::vector<std::string> known = names();
    std::string list;
    for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
    return "unknown " + what_ + " '" + name + "' (registered: " + (list.empty() ? std::string("none") : list) + ")" +
           did_you_mean(name, known);
  }

  std::string origin(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(name);
    return it == entries_.end() ? std::string() : it->second.origin;
  }

  std::vector<std::string> names() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const auto& kv : entries_) out.push_back(kv.first);
    return out;
  }

  // Every entry in name order, for readers that need more than one (after freeze: no lock needed).
  std::vector<const T*> values() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<const T*> out;
    for (const auto& kv : entries_) out.push_back(&kv.second.value);
    return out;
  }

  // `why` says who froze it, for the late registration's error. Idempotent.
  void freeze(const std::string& why) {
    std::lock_guard<std::mutex> lock(mu_);
    if (frozen_) return;
    frozen_ = true;
    frozen_by_ = why;
  }
  bool frozen() const {
    std::lock_guard<std::mutex> lock(mu_);
    return frozen_;
  }

 private:
  struct Entry {
    T value;
    std::string origin;
  };
  std::string what_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
  bool frozen_ = false;
  std::string frozen_by_;
};

}  // namespace cc
