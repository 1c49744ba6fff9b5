#include "catalogue/sweep_results.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/file_io.h"
#include "util/json_number.h"
#include "util/json_input.h"

namespace cc::catalogue {

nlohmann::json PointResult::to_json() const {
  nlohmann::json sets = nlohmann::json::object();
  for (const auto& [name, c] : final_sets) {
    sets[name] = {{"n", c.n}, {"correct", c.correct}};
    auto it = final_loss.find(name);
    if (it != final_loss.end()) sets[name]["loss"] = it->second;
  }
  return {{"index", index},
          {"axes", axes},
          {"seed", seed},
          {"config_hash", config_hash},
          {"final", {{"step", final_step}, {"eval_seed", final_eval_seed}, {"sets", sets}}},
          {"metrics", metrics}};
}

PointResult PointResult::from_json(const nlohmann::json& j) {
  try {
    PointResult p;
    p.index = json_uint64(j.at("index"), "index");
    p.axes = j.at("axes");
    if (!p.axes.is_object()) throw Error("'axes' must be an object");
    p.seed = json_uint64(j.at("seed"), "seed");
    p.config_hash = j.at("config_hash").get<std::string>();
    const auto& fin = j.at("final");
    p.final_step = json_int64(fin.at("step"), "final step");
    p.final_eval_seed = json_uint64(fin.at("eval_seed"), "eval_seed");
    for (const auto& [name, c] : fin.at("sets").items()) {
      analysis::SetCount sc{json_int64(c.at("n"), "n"), json_int64(c.at("correct"), "correct")};
      if (sc.n < 0 || sc.correct < 0 || sc.correct > sc.n) throw Error("set '" + name + "': counts out of range");
      p.final_sets[name] = sc;
      if (c.contains("loss")) p.final_loss[name] = c["loss"].get<double>();
    }
    for (const auto& m : j.at("metrics")) {
      json_int64(m.at("step"), "metrics step");
      if (!m.at("acc").is_object() || !m.at("n").is_object()) throw Error("a metrics record lacks 'acc' or 'n'");
      p.metrics.push_back(m);
    }
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed point: ") + e.what());
  }
}

std::string sweep_fixtures_dir(const std::string& fixtures_dir, const std::string& sweep) {
  return fixtures_dir + "/sweeps/" + sweep;
}

std::string summary_path(const std::string& dir) { return dir + "/summary.jsonl"; }
std::string manifest_path(const std::string& dir) { return dir + "/manifest.json"; }

std::vector<PointResult> read_summary(const std::string& path) {
  std::istringstream in(read_regular_file(path, kMaxJsonBytes, "sweep summary"));
  std::vector<PointResult> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    try {
      out.push_back(PointResult::from_json(parse_json(line, "summary line")));
    } catch (const std::exception& e) {
      throw Error(SourcePos{path, n, 0}, e.what());
    }
  }
  return out;
}

std::string summary_text(const std::vector<PointResult>& points) {
  std::string s;
  for (const auto& p : points) s += p.to_json().dump() + "\n";
  return s;
}

analysis::SweepSeries series_for_seed(const std::string& sweep, const std::vector<PointResult>& points,
                                      const std::string& axis, uint64_t seed, Stage stage) {
  analysis::SweepSeries s;
  s.sweep = sweep;
  s.axis = axis;
  s.seed = seed;
  for (const auto& p : points) {
    if (p.seed != seed) continue;
    if (!p.axes.contains(axis) || !p.axes[axis].is_number())
      throw Error("sweep '" + sweep + "' point " + std::to_string(p.index) + " has no numeric axis '" + axis + "'");
    if (p.axes.size() != 1)
      throw Error("sweep '" + sweep + "' has " + std::to_string(p.axes.size()) + " axes; this measurement needs one");
    analysis::SweepSeriesPoint q;
    q.x = p.axes[axis].get<double>();
    if (stage == Stage::Final) {
      q.step = p.final_step;
      q.sets = p.final_sets;
    } else {
      auto it =
          std::find_if(p.metrics.begin(), p.metrics.end(), [](const nlohmann::json& m) { return m["step"] == 0; });
      if (it == p.metrics.end())
        throw Error("sweep '" + sweep + "' point " + std::to_string(p.index) +
                    " has no step-0 metrics (the negative control)");
      q.step = 0;
      for (const auto& [name, acc] : (*it)["acc"].items()) {
        const int64_t n = (*it)["n"].value(name, int64_t{0});
        q.sets[name] = {n, static_cast<int64_t>(std::llround(acc.get<double>() * static_cast<double>(n)))};
      }
    }
    s.points.push_back(std::move(q));
  }
  std::sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
  return s;
}

}  // namespace cc::catalogue
