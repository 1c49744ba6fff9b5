#include "util/registry.h"

#include <algorithm>

namespace cc {
namespace {

// Levenshtein distance, two rows: names are short (a kind, a family, a claim id).
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

// The names nearest to `name`, in their order: a name that starts with it (M8 -> M8a) is nearest, then
// edit distance, within a third of its length (at least 2 edits).
std::vector<std::string> nearest_names(const std::string& name, const std::vector<std::string>& names) {
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  std::vector<std::string> best;
  size_t best_distance = limit + 1;
  for (const auto& n : names) {
    const size_t d = n.size() > name.size() && n.compare(0, name.size(), name) == 0 ? 0 : edit_distance(name, n);
    if (d > best_distance) continue;
    if (d < best_distance) best.clear();
    best_distance = d;
    if (std::find(best.begin(), best.end(), n) == best.end()) best.push_back(n);
  }
  return best;
}

std::string nearest_name(const std::string& name, const std::vector<std::string>& names) {
  const auto near = nearest_names(name, names);
  return near.empty() ? std::string() : near.front();
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& names) {
  const auto near = nearest_names(name, names);
  if (near.empty()) return "";
  std::string out = ", did you mean ";
  const size_t shown = std::min<size_t>(near.size(), 3);
  for (size_t i = 0; i < shown; ++i) out += (i == 0 ? "" : i + 1 == shown ? " or " : ", ") + ("'" + near[i] + "'");
  return out + "?";
}

}  // namespace cc
