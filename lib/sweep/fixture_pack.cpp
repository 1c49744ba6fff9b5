#include "sweep/fixture_pack.h"

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "catalogue/layout.h"
#include "sweep/point_files.h"
#include "train/checkpoint.h"
#include "util/fixture_manifest.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/provenance.h"
#include "util/sha256.h"

namespace cc::sweep {
namespace fs = std::filesystem;
namespace {

// The commit a run started with: its step-0 sidecar's build_commit (the binary's), or git_commit (the
// checkout's state) in sidecars older than build_commit.
std::string trained_with_commit(const std::string& src) {
  const nlohmann::json side = read_json(train::sidecar_path(train::checkpoint_path(src, 0)));
  for (const char* key : {"build_commit", "git_commit"}) {
    const auto rt = side.find("runtime");
    const nlohmann::json& where = rt != side.end() && rt->contains(key) ? *rt : side;
    if (where.contains(key) && where[key].is_string()) return where[key].get<std::string>();
  }
  throw Error(train::sidecar_path(train::checkpoint_path(src, 0)) + ": names no build_commit or git_commit");
}

// The variant a point of a variant sweep stands for.
std::string variant_of(const catalogue::SweepPoint& p) { return p.axes.at(catalogue::kVariantAxis).get<std::string>(); }

}  // namespace

size_t pack_run(const PackRequest& r) {
  if (r.steps.empty()) throw Error(r.src + ": no step to pack");
  std::vector<std::string> files;  // relative to src and dst
  for (int64_t step : r.steps) {
    const std::string weights = fs::path(train::checkpoint_path(r.src, step)).filename().string();
    for (const std::string& f : {weights, fs::path(train::sidecar_path(weights)).filename().string()})
      files.push_back(f);
  }
  files.push_back("metrics.jsonl");
  if (fs::exists(r.src + "/" + kFinalEval)) files.push_back(kFinalEval);
  for (const auto& f : files)
    if (!fs::is_regular_file(r.src + "/" + f)) throw Error(r.src + "/" + f + ": missing, nothing packed");
  // Each checkpoint loads as claimcheck will read it (its sha256 the sidecar's, finite weights) before
  // its hash is recorded: a pack never vouches for a corrupted file.
  for (int64_t step : r.steps) {
    try {
      train::load_checkpoint(train::checkpoint_path(r.src, step));
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + "; nothing packed");
    }
  }
  const std::string commit = trained_with_commit(r.src);

  fs::create_directories(r.dst);
  std::map<std::string, std::string> sha;  // sorted, as run.json lists them
  for (const auto& f : files) {
    fs::copy_file(r.src + "/" + f, r.dst + "/" + f, fs::copy_options::overwrite_existing);
    sha[f] = sha256_file(r.dst + "/" + f);
  }
  nlohmann::ordered_json run = {{"format", kFixtureRunFormat},
                                {"packed", utc_now_iso8601()},
                                {"final_sidecar", files[2 * r.steps.size() - 1]},
                                {"trained_with_commit", commit}};
  if (!r.recreate.empty()) run["recreate"] = r.recreate;
  run["sha256"] = sha;
  write_file_atomic(r.dst + "/run.json", run.dump(2) + "\n");
  return files.size();
}

std::string packed_point_dir(const std::string& fixtures_dir, const catalogue::SweepSpec& s,
                             const catalogue::SweepPoint& p) {
  const std::string key = s.variants.empty() ? p.config_hash : variant_of(p);
  return fixtures_dir + "/" + s.name + "/" + key + "/seed" + std::to_string(p.seed);
}

size_t pack_sweep(const SweepOptions& o, const catalogue::SweepSpec& s, const std::string& fixtures_dir,
                  const std::vector<int64_t>& variant_steps) {
  size_t packed = 0;
  for (const auto& p : s.points) {
    if (point_state(o, s, p).kind != PointState::Done) continue;
    PackRequest r;
    r.src = point_dir(o, s, p);
    r.dst = packed_point_dir(fixtures_dir, s, p);
    if (fs::exists(r.dst + "/run.json")) continue;
    const int64_t last = p.config.train.steps;
    if (s.variants.empty()) {
      r.steps = {0, last};
      r.recreate = point_command(o, s, p);
    } else {
      r.steps = variant_steps.empty() ? std::vector<int64_t>{last} : variant_steps;
      // A point trained on a GPU is recreated there: its sidecar names the device.
      const nlohmann::json side = read_json(train::sidecar_path(train::checkpoint_path(r.src, 0)));
      const std::string device = side.value("device", std::string("cpu"));
      const std::string run = s.name + "/" + variant_of(p), seed = std::to_string(p.seed);
      r.recreate = "claimcheck train --config " + o.runs_path + " --run " + run + " --seed " + seed +
                   (device == "cpu" ? "" : " --device " + device) + " --out runs/" + run + "/seed" + seed;
    }
    pack_run(r);
    ++packed;
  }
  return packed;
}

size_t restore_sweep(const SweepOptions& o, const catalogue::SweepSpec& s, const std::string& fixtures_dir) {
  if (!s.variants.empty())
    throw Error("sweep '" + s.name + "' has variants: its points are runs (" + s.name +
                "/VARIANT), which the run store reads from the fixtures directly");
  // A committed tree's manifest is checked first: a point's run.json could be rewritten with its files.
  // Packed points are always listed in one (pack writes it), so a tree without it is refused: with the
  // manifest deleted, a re-hashed run.json alone would vouch for a changed file.
  auto guard = FixtureGuard::if_committed(fixtures_dir);
  if (!guard)
    throw Error(fixtures_dir + "/" + kManifestName +
                ": missing; restore reads packed points only from a tree "
                "whose manifest lists them (`claimcheck fixtures manifest` writes it)");
  size_t restored = 0;
  for (const auto& p : s.points) {
    const std::string src = packed_point_dir(fixtures_dir, s, p);
    if (!fs::exists(src + "/run.json")) continue;
    const std::string dst = point_dir(o, s, p);
    if (final_eval_done(dst, p.config.train.steps)) continue;
    if (guard) guard->require_dir(src);
    // Each file as packed (run.json's sha256), before anything of the point is copied.
    const nlohmann::json run = read_json(src + "/run.json");
    if (!run.contains("sha256") || !run["sha256"].is_object() || run["sha256"].empty())
      throw Error(src + "/run.json: lists no files (\"sha256\")");
    for (const auto& [f, sum] : run["sha256"].items()) {
      if (f.find('/') != std::string::npos || f == "." || f == "..")
        throw Error(src + "/run.json: '" + f + "' is not a file name of its folder");
      if (!sum.is_string() || sha256_file(src + "/" + f) != sum.get<std::string>())
        throw Error(src + "/" + f + ": does not match run.json");
    }
    fs::create_directories(dst);
    for (const auto& [f, sum] : run["sha256"].items())
      fs::copy_file(src + "/" + f, dst + "/" + f, fs::copy_options::overwrite_existing);
    ++restored;
  }
  return restored;
}

}  // namespace cc::sweep
