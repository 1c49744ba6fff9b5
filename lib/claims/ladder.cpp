#include "claims/ladder.h"

#include <filesystem>
#include <functional>
#include <set>

#include "util/error.h"
#include "util/file_io.h"
#include "util/names.h"
#include "util/yaml_json.h"

namespace cc::claims {
namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxAxes = 16, kMaxRungs = 16;

// `runs:` of one rung: each committed run to the run this rung reads instead, both in runs.yaml.
std::map<std::string, std::string> read_run_map(ObjectReader& r, const catalogue::Runs& runs) {
  std::map<std::string, std::string> out;
  if (!r.has("runs")) return out;
  ObjectReader m = r.object("runs");
  for (const auto& [from, _] : m.json().items()) {
    const std::string to = m.string(from);
    if (!runs.find(from)) m.fail(from, "names no run of " + runs.path() + ": '" + from + "'");
    if (!runs.find(to)) m.fail(from, "maps to no run of " + runs.path() + ": '" + to + "'");
    out[from] = to;
  }
  m.finish();
  if (out.empty()) r.fail("runs", "expected at least one {committed run: this rung's run}");
  return out;
}

// `key:`, relative to paper.yaml: a file inside the paper's folder whose name `fits`, as an absolute path.
std::string read_paper_file(ObjectReader& r, const std::string& key, const std::string& paper_yaml,
                            const std::function<bool(const fs::path&)>& fits, const std::string& what) {
  const fs::path rel = r.string(key);
  const fs::path folder = fs::weakly_canonical(fs::absolute(paper_yaml)).parent_path();
  const fs::path target = fs::weakly_canonical(folder / rel);
  if (rel.is_absolute() || !fits(rel) || !lies_within(target.string(), folder.string()))
    r.fail(key, "must name " + what + " inside the paper's folder (" + folder.string() +
                    "), relative to paper.yaml; got '" + rel.string() + "'");
  return target.string();
}

Rung read_rung(const YamlDoc& doc, const std::string& pointer, const std::string& paper_yaml,
               const catalogue::Runs& runs) {
  ObjectReader r(doc, pointer);
  Rung rung;
  rung.name = r.string("name");
  check_name(rung.name, "rung name", doc.at(pointer + "/name"));  // a test's name: rung.PAPER.NAME
  rung.label = r.string("label", rung.name);
  rung.paper = r.boolean("paper", false);
  rung.runs = read_run_map(r, runs);
  if (rung.committed()) {
    for (const char* key : {"report", "baseline"})
      if (r.has(key)) r.fail(key, "the committed rung (no `runs:`) is the paper's own report and baseline: name none");
  } else {
    rung.report_as_written = r.raw("report").is_string() ? r.raw("report").get<std::string>() : "";
    rung.report = read_paper_file(
        r, "report", paper_yaml, [](const fs::path& p) { return p.filename() == "report.json"; }, "a report.json");
    if (r.has("baseline"))
      rung.baseline = read_paper_file(
          r, "baseline", paper_yaml, [](const fs::path& p) { return p.extension() == ".json"; }, "a .json file");
  }
  r.finish();
  return rung;
}

LadderAxis read_axis(const YamlDoc& doc, const std::string& name, const std::string& paper_yaml,
                     const catalogue::Runs& runs, std::set<std::string>& rung_names) {
  const std::string pointer = "/ladder/" + name;
  check_name(name, "ladder axis", doc.key_at("/ladder", name));  // it names the section's figure files
  ObjectReader a(doc, pointer);
  LadderAxis axis;
  axis.name = name;
  axis.why = a.prose("why");
  const auto& list = a.raw("rungs");
  if (!list.is_array() || list.size() < 2 || list.size() > kMaxRungs)
    a.fail("rungs", "expected a list of 2 to " + std::to_string(kMaxRungs) + " rungs {name, label, runs, report}");
  int committed = 0, paper = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = pointer + "/rungs/" + std::to_string(i);
    Rung rung = read_rung(doc, at, paper_yaml, runs);
    rung.axis = name;
    if (!rung_names.insert(rung.name).second)
      throw Error(doc.at(at + "/name"), "rung '" + rung.name + "' is declared twice in the ladder");
    committed += rung.committed();
    paper += rung.paper;
    axis.rungs.push_back(std::move(rung));
  }
  if (committed != 1) a.fail("rungs", "expected exactly one rung without `runs:` (the committed runs)");
  if (paper > 1) a.fail("rungs", "at most one rung is the paper's own scale (`paper: true`)");
  a.finish();
  return axis;
}

}  // namespace

std::vector<LadderAxis> load_ladder(const std::string& paper_yaml, const catalogue::Runs& runs) {
  std::vector<LadderAxis> out;
  if (!fs::exists(paper_yaml)) return out;
  const YamlDoc doc = load_yaml_file(paper_yaml);
  ObjectReader top(doc, "");
  if (!top.has("ladder")) return out;
  ObjectReader all = top.object("ladder");
  if (all.json().size() > kMaxAxes) top.fail("ladder", "at most " + std::to_string(kMaxAxes) + " axes");
  std::set<std::string> rung_names;
  for (const auto& [name, _] : all.json().items()) {
    all.raw(name);
    out.push_back(read_axis(doc, name, paper_yaml, runs, rung_names));
  }
  all.finish();
  return out;
}

const Rung& find_rung(const std::vector<LadderAxis>& ladder, const std::string& name, const std::string& paper_yaml) {
  std::string known;
  for (const auto& axis : ladder)
    for (const auto& rung : axis.rungs) {
      if (rung.name == name) {
        if (rung.committed())
          throw Error("--rung " + name + ": the committed runs' rung; verify without --rung measures it");
        return rung;
      }
      known += (known.empty() ? "" : ", ") + rung.name;
    }
  throw Error("--rung " + name + ": " + paper_yaml + " declares no such rung" +
              (known.empty() ? std::string(" (it has no `ladder:`)") : " (its rungs: " + known + ")"));
}

}  // namespace cc::claims
