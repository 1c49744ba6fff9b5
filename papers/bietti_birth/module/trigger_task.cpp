#include "papers/bietti_birth/module/trigger_task.h"

#include <torch/torch.h>

#include <algorithm>
#include <vector>

#include "papers/bietti_birth/module/char_stats.h"
#include "train/task_data.h"
#include "util/error.h"
#include "util/rng.h"

namespace cc::bietti_birth {

TaskConfig TaskConfig::from_yaml(ObjectReader r) {
  TaskConfig t;
  r.string("family");  // read by the engine (train/family.h)
  t.seq_len = static_cast<int>(r.integer_in("seq_len", 2, 4096));
  t.triggers = static_cast<int>(r.integer_in("triggers", 1, 32));
  t.trigger_choice = r.one_of("trigger_choice", {"most_frequent", "unigram", "unigram_not_most_frequent"});
  t.output_choice = r.one_of("output_choice", {"uniform", "bigram"});
  t.loss_on = r.one_of("loss_on", {"in_context_repeats", "every_token"});
  t.statistics = r.string("statistics");
  if (t.statistics != char_stats().sha256)
    r.fail("statistics", "is not the sha256 of the compiled-in character statistics (" + char_stats().sha256 +
                             "): a run names the statistics it was trained on");
  r.finish();
  return t;
}

nlohmann::json TaskConfig::to_json() const {
  return {{"family", "trigger_bigrams"},    {"seq_len", seq_len},
          {"triggers", triggers},           {"trigger_choice", trigger_choice},
          {"output_choice", output_choice}, {"loss_on", loss_on},
          {"statistics", statistics}};
}

int TaskConfig::vocab_size() const { return char_stats().size(); }

namespace {

// The sequence's K triggers: the most frequent characters, or K distinct draws from pi_u (a repeat,
// or under unigram_not_most_frequent one of the K most frequent, is drawn again).
std::vector<int> draw_triggers(const TaskConfig& task, Rng& rng) {
  const CharStats& s = char_stats();
  const auto most_frequent_end = s.by_frequency.begin() + task.triggers;
  if (task.trigger_choice == "most_frequent") return {s.by_frequency.begin(), most_frequent_end};
  const bool avoid_most_frequent = task.trigger_choice == "unigram_not_most_frequent";
  std::vector<int> q;
  while (static_cast<int>(q.size()) < task.triggers) {
    const int t = s.unigram.draw(rng);
    if (std::find(q.begin(), q.end(), t) != q.end()) continue;
    if (avoid_most_frequent && std::find(s.by_frequency.begin(), most_frequent_end, t) != most_frequent_end) continue;
    q.push_back(t);
  }
  return q;
}

// One sequence of T + 1 tokens into tokens/next/occurrence rows.
void draw_one(const TaskConfig& task, Rng& rng, int64_t* tokens, int64_t* next, int64_t* occurrence) {
  const CharStats& s = char_stats();
  const std::vector<int> q = draw_triggers(task, rng);
  std::vector<int> o;
  for (int k = 0; k < task.triggers; ++k)
    o.push_back(task.output_choice == "uniform" ? static_cast<int>(rng.below(s.size())) : s.next[q[k]].draw(rng));
  std::vector<int64_t> seen(q.size(), 0);
  int z = s.unigram.draw(rng);  // z_1 ~ pi_u
  for (int t = 0; t < task.seq_len; ++t) {
    tokens[t] = z;
    const auto k = std::find(q.begin(), q.end(), z) - q.begin();
    if (k < static_cast<long>(q.size())) {
      z = o[static_cast<size_t>(k)];
      occurrence[t] = ++seen[static_cast<size_t>(k)];
    } else {
      z = s.next[static_cast<size_t>(z)].draw(rng);
      occurrence[t] = 0;
    }
    next[t] = z;
  }
}

}  // namespace

Sequences draw_sequences(const TaskConfig& task, uint64_t seed, uint64_t stream, uint64_t index, int64_t count) {
  Rng rng(seed, stream, index);
  const int64_t T = task.seq_len;
  Sequences out{torch::empty({count, T}, torch::kLong), torch::empty({count, T}, torch::kLong),
                torch::empty({count, T}, torch::kLong)};
  for (int64_t b = 0; b < count; ++b)
    draw_one(task, rng, out.tokens.data_ptr<int64_t>() + b * T, out.next.data_ptr<int64_t>() + b * T,
             out.occurrence.data_ptr<int64_t>() + b * T);
  return out;
}

Sequences eval_sequences(const TaskConfig& task, int64_t size, uint64_t eval_seed) {
  return draw_sequences(task, eval_seed, stream_id("eval"), 0, size);
}

torch::Tensor targets_where(const Sequences& s, const torch::Tensor& keep) {
  return torch::where(keep, s.next, torch::full_like(s.next, train::kNoTarget));
}

}  // namespace cc::bietti_birth
