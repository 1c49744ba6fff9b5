#include "train/bookkeeping.h"

#include <chrono>

#include "train/family.h"

namespace cc::train {
namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

void TrainClock::start() { start_ = now_s(); }
double TrainClock::elapsed() const { return before_ + (now_s() - start_); }

nlohmann::json metrics_record(int64_t step, double wall_s, double train_loss, const std::vector<SetResult>& results,
                              const nlohmann::json& extra) {
  nlohmann::json rec = {{"step", step}, {"wall_s", wall_s}};
  if (train_loss >= 0) rec["train_loss"] = train_loss;
  for (const auto& r : results) {
    rec["acc"][r.name] = r.accuracy();
    rec["loss"][r.name] = r.loss;
    rec["n"][r.name] = r.n;
  }
  if (extra.is_object()) rec.update(extra);
  return rec;
}

nlohmann::json family_metrics(const RunConfig& cfg, const model::Transformer& model) {
  const TaskFamily& family = family_of(cfg);
  return family.extra_metrics ? family.extra_metrics(cfg, model) : nlohmann::json::object();
}

nlohmann::json sidecar_extra(const TrainOptions& opts, const nlohmann::json& runtime, double wall_s) {
  return {{"command", opts.command}, {"runtime", runtime}, {"device", opts.device.str()}, {"train_wall_s", wall_s}};
}

std::unique_ptr<MetricsLog> open_metrics_log(const std::string& dir, int64_t start) {
  return std::make_unique<MetricsLog>(metrics_path(dir), start > 0 ? start + 1 : 0);
}

}  // namespace cc::train
