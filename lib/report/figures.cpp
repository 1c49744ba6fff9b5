#include "report/figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"

namespace cc::report {
namespace fs = std::filesystem;
namespace {

std::string num(double v) {
  if (!std::isfinite(v)) return "NaN";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// gnuplot string literal. Inside single quotes gnuplot expands nothing (no backquote command,
// no @macro, no escape); a quote is written doubled. What could still end the literal is a line
// end, so every control character becomes a space: text from a claim, a runs file or a checkpoint
// can then only ever be the text of a title or label, never a command (tests/test_figures.cpp).
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "''";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      out += ' ';
    else
      out += c;
  }
  return out + "'";
}

std::string text(const nlohmann::json& spec, const char* key) {
  return spec.contains(key) && spec[key].is_string() ? spec[key].get<std::string>() : "";
}

void header(std::ostringstream& gp, const nlohmann::json& spec, const std::string& png, int w, int h) {
  gp << "set terminal pngcairo size " << w << "," << h << " font 'DejaVu Sans,9' noenhanced\n"
     << "set output " << quoted(png) << "\n"
     << "set title " << quoted(text(spec, "title")) << "\n"
     << "set xlabel " << quoted(text(spec, "xlabel")) << "\n"
     << "set ylabel " << quoted(text(spec, "ylabel")) << "\n";
}

// Colour-blind-safe palette (Okabe-Ito), cycled.
const char* colour(size_t i) {
  static const char* c[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"};
  return c[i % 8];
}

void heatmap(std::ostringstream& gp, const nlohmann::json& spec) {
  const auto& m = spec.at("matrix");
  const size_t rows = m.size(), cols = rows ? m[0].size() : 0;
  // "diverging": signed values in [-1, 1] (an effect), white at 0; otherwise light to dark.
  if (spec.value("diverging", false))
    gp << "set palette defined (-1 '#b2182b', 0 '#f7f7f7', 1 '#2166ac')\nset cbrange [-1:1]\n";
  else
    gp << "set palette defined (0 '#f7fbff', 0.5 '#6baed6', 1 '#08306b')\n";
  if (spec.contains("cbrange"))
    gp << "set cbrange [" << num(spec["cbrange"][0].get<double>()) << ":" << num(spec["cbrange"][1].get<double>())
       << "]\n";
  gp << "unset key\nset size ratio -1\n"
     << "set xrange [-0.5:" << cols - 0.5 << "]\nset yrange [" << rows - 0.5 << ":-0.5]\n"
     << "set cblabel " << quoted(text(spec, "cblabel")) << "\n";
  if (spec.value("xtics_rotate", false)) gp << "set xtics rotate by 60 right\n";
  for (const char* axis : {"xtics", "ytics"}) {
    if (!spec.contains(axis)) continue;
    gp << "set " << axis << " (";
    for (size_t i = 0; i < spec[axis].size(); ++i)
      gp << (i ? ", " : "") << quoted(spec[axis][i].get<std::string>()) << " " << i;
    gp << ") font ',7'\n";
  }
  gp << "$m << EOD\n";
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c)
      gp << (c ? " " : "") << (m[r][c].is_number() ? num(m[r][c].get<double>()) : "NaN");
    gp << "\n";
  }
  gp << "EOD\nplot $m matrix with image\n";
}

void marks(std::ostringstream& gp, const nlohmann::json& spec) {
  int k = 1;
  for (const char* kind : {"vlines", "hlines"}) {
    if (!spec.contains(kind)) continue;
    for (const auto& l : spec[kind]) {
      const std::string at = num(l.at("at").get<double>());
      if (std::string(kind) == "vlines")
        gp << "set arrow " << k << " from " << at << ", graph 0 to " << at << ", graph 1 nohead dt 2 lc rgb '#555555'\n"
           << "set label " << k << " " << quoted(text(l, "label")) << " at " << at
           << ", graph 0.03 rotate by 90 left offset -0.6,0 font ',7'\n";
      else
        gp << "set arrow " << k << " from graph 0, first " << at << " to graph 1, first " << at
           << " nohead dt 3 lc rgb '#555555'\n"
           << "set label " << k << " " << quoted(text(l, "label")) << " at graph 0.01, first " << at
           << " offset 0,0.5 font ',7'\n";
      ++k;
    }
  }
}

void lines(std::ostringstream& gp, const nlohmann::json& spec) {
  const auto& series = spec.at("series");
  gp << "set key outside right top font ',7'\nset grid\n";
  if (spec.contains("yrange")) gp << "set yrange [" << num(spec["yrange"][0]) << ":" << num(spec["yrange"][1]) << "]\n";
  if (spec.value("logx", false)) gp << "set logscale x\n";
  if (spec.contains("xrange")) gp << "set xrange [" << num(spec["xrange"][0]) << ":" << num(spec["xrange"][1]) << "]\n";
  if (spec.contains("xtics")) {  // labels at x = 0, 1, ... (e.g. the rungs of a scale ladder)
    gp << "set xtics (";
    for (size_t i = 0; i < spec["xtics"].size(); ++i)
      gp << (i ? ", " : "") << quoted(spec["xtics"][i].get<std::string>()) << " " << i;
    gp << ") font ',7'\n";
  }
  marks(gp, spec);
  for (size_t s = 0; s < series.size(); ++s) {
    gp << "$s" << s << " << EOD\n";
    const auto &x = series[s].at("x"), &y = series[s].at("y");
    for (size_t i = 0; i < std::min(x.size(), y.size()); ++i)
      gp << num(x[i].get<double>()) << " " << num(y[i].get<double>()) << "\n";
    gp << "EOD\n";
  }
  gp << "plot ";
  for (size_t s = 0; s < series.size(); ++s)
    gp << (s ? ", " : "") << "$s" << s << " using 1:2 with linespoints pt 7 ps 0.4 lw 1.2 lc rgb '" << colour(s)
       << "' title " << quoted(text(series[s], "name"));
  gp << "\n";
}

void histogram(std::ostringstream& gp, const nlohmann::json& spec) {
  const auto& series = spec.at("series");
  double lo = INFINITY, hi = -INFINITY;
  if (spec.contains("range")) {
    lo = spec["range"][0];
    hi = spec["range"][1];
  } else {
    for (const auto& s : series)
      for (const auto& v : s.at("values")) lo = std::min(lo, v.get<double>()), hi = std::max(hi, v.get<double>());
  }
  if (!(hi > lo)) hi = lo + 1;
  const int bins = spec.value("bins", 40);
  const double w = (hi - lo) / bins;
  gp << "set key top left font ',8'\nset style fill transparent solid 0.45 noborder\nset xrange [" << num(lo) << ":"
     << num(hi) << "]\n";
  marks(gp, spec);
  for (size_t s = 0; s < series.size(); ++s) {
    std::vector<double> count(static_cast<size_t>(bins), 0.0);
    const auto& values = series[s].at("values");
    for (const auto& v : values) {
      const int b = std::clamp(static_cast<int>((v.get<double>() - lo) / w), 0, bins - 1);
      count[static_cast<size_t>(b)] += 1.0;
    }
    gp << "$h" << s << " << EOD\n";
    for (int b = 0; b < bins; ++b)
      gp << num(lo + (b + 0.5) * w) << " " << num(values.empty() ? 0 : count[static_cast<size_t>(b)] / values.size())
         << "\n";
    gp << "EOD\n";
  }
  gp << "set boxwidth " << num(w) << " absolute\nplot ";
  for (size_t s = 0; s < series.size(); ++s)
    gp << (s ? ", " : "") << "$h" << s << " using 1:2 with boxes lc rgb '" << colour(s) << "' title "
       << quoted(text(series[s], "name"));
  gp << "\n";
}

void bars(std::ostringstream& gp, const nlohmann::json& spec) {
  const auto &labels = spec.at("labels"), &values = spec.at("values");
  gp << "unset key\nset style fill solid 0.7 noborder\nset boxwidth 0.8\nset grid ytics\nset xtics (";
  const size_t step = labels.size() > 30 ? 5 : 1;
  bool first = true;
  for (size_t i = 0; i < labels.size(); i += step) {
    gp << (first ? "" : ", ") << quoted(labels[i].get<std::string>()) << " " << i;
    first = false;
  }
  gp << ") font ',7'\n$b << EOD\n";
  for (size_t i = 0; i < values.size(); ++i) gp << i << " " << num(values[i].get<double>()) << "\n";
  gp << "EOD\nplot $b using 1:2 with boxes lc rgb '" << colour(0) << "'\n";
}

// One spec from the per-seed specs of a claim: merged across seeds, or the first seed's.
nlohmann::json combine(const std::vector<std::pair<uint64_t, nlohmann::json>>& per_seed) {
  nlohmann::json spec = per_seed.front().second;
  if (!spec.value("merge_seeds", false) || per_seed.size() == 1) {
    spec["title"] = text(spec, "title") + " (seed " + std::to_string(per_seed.front().first) + ")";
    return spec;
  }
  nlohmann::json series = nlohmann::json::array();
  for (const auto& [seed, s] : per_seed)
    for (auto one : s.at("series")) {
      const std::string name = text(one, "name");
      one["name"] = "seed " + std::to_string(seed) + (name.empty() ? "" : ": " + name);
      series.push_back(one);
    }
  spec["series"] = series;
  return spec;
}

// Why a spec has nothing a plot could show ("" when it has): no finite value at all, or every point
// at one x (gnuplot's "empty x range"). Such data is written as text instead of a broken figure.
std::string undrawable(const nlohmann::json& spec) {
  const std::string type = text(spec, "type");
  auto finite = [](const nlohmann::json& v) { return v.is_number() && std::isfinite(v.get<double>()); };
  if (type == "lines") {
    std::vector<std::string> points;
    double x_lo = INFINITY, x_hi = -INFINITY;
    for (const auto& s : spec.at("series")) {
      const auto &x = s.at("x"), &y = s.at("y");
      for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
        if (!finite(x[i]) || !finite(y[i])) continue;
        x_lo = std::min(x_lo, x[i].get<double>()), x_hi = std::max(x_hi, x[i].get<double>());
        const std::string name = text(s, "name");
        points.push_back((name.empty() ? "" : name + ": ") + "(" + num(x[i].get<double>()) + ", " +
                         num(y[i].get<double>()) + ")");
      }
    }
    if (points.empty()) return "no finite point to draw";
    if (x_hi > x_lo) return "";
    std::string list;
    for (size_t i = 0; i < points.size() && i < 16; ++i) list += (i ? "; " : "") + points[i];
    if (points.size() > 16) list += "; and " + std::to_string(points.size() - 16) + " more";
    return "every point at one x, so as text: " + list;
  }
  if (type == "heatmap") {
    for (const auto& row : spec.at("matrix"))
      for (const auto& v : row)
        if (finite(v)) return "";
    return "no finite value to draw";
  }
  if (type == "histogram") {
    for (const auto& s : spec.at("series"))
      for (const auto& v : s.at("values"))
        if (finite(v)) return "";
    return "no finite value to draw";
  }
  if (type == "bars") {
    for (const auto& v : spec.at("values"))
      if (finite(v)) return "";
    return "no finite value to draw";
  }
  return "";  // an unknown type is gnuplot_script's error
}

}  // namespace

std::string gnuplot_script(const nlohmann::json& spec, const std::string& png_path) {
  std::ostringstream gp;
  const std::string type = text(spec, "type");
  const bool square = type == "heatmap";
  const bool sized = spec.contains("size") && spec["size"].is_array() && spec["size"].size() == 2;
  header(gp, spec, png_path,
         sized    ? spec["size"][0].get<int>()
         : square ? 560
                  : 720,
         sized    ? spec["size"][1].get<int>()
         : square ? 500
                  : 380);
  if (type == "heatmap")
    heatmap(gp, spec);
  else if (type == "lines")
    lines(gp, spec);
  else if (type == "histogram")
    histogram(gp, spec);
  else if (type == "bars")
    bars(gp, spec);
  else
    throw Error("figure '" + text(spec, "id") + "': unknown type '" + type + "'");
  return gp.str();
}

namespace {

// A PNG that ends in its IEND chunk: gnuplot may exit 0 after a write failed (a full disk), leaving
// a truncated file that no viewer shows.
bool complete_png(const std::string& path) {
  static const unsigned char kIend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in || in.tellg() < 20) return false;
  in.seekg(-12, std::ios::end);
  unsigned char tail[12];
  in.read(reinterpret_cast<char*>(tail), 12);
  return in && std::memcmp(tail, kIend, 12) == 0;
}

// Runs gnuplot on `script`; its own output never reaches the user's terminal (nor PNG bytes, whatever
// the path): a failure is judged from the figures' files and reported in their entries.
int run_gnuplot(const std::string& script) {
  FILE* gp = ::popen("gnuplot >/dev/null 2>&1", "w");
  if (!gp) throw Error("cannot start gnuplot");
  std::fwrite(script.data(), 1, script.size(), gp);
  return ::pclose(gp);
}

nlohmann::json entry_for(const nlohmann::json& spec) {
  return {{"caption", text(spec, "title")}, {"paper_figure", text(spec, "paper_figure")}};
}

// gnuplot draws into PNG.part, renamed once complete: a full disk or a killed gnuplot leaves no
// truncated figure under the name the report links.
std::string part_path(const std::string& dir, const std::string& rel) {
  const std::string png = dir + "/" + rel;
  fs::create_directories(fs::path(png).parent_path());
  return png + ".part";
}

// Moves a complete PART into place as DIR/REL; false (and PART removed) when it is not complete.
bool keep_if_complete(const std::string& dir, const std::string& rel, const std::string& part) {
  std::error_code ec;
  if (!complete_png(part)) {
    fs::remove(part, ec);
    return false;
  }
  fs::rename(part, dir + "/" + rel);
  return true;
}

}  // namespace

nlohmann::json render_figure(const std::string& dir, const std::string& rel, const nlohmann::json& spec) {
  nlohmann::json entry = entry_for(spec);
  try {
    if (const std::string why = undrawable(spec); !why.empty()) {
      entry["text"] = why;
      return entry;
    }
    const std::string part = part_path(dir, rel);
    const int rc = run_gnuplot(gnuplot_script(spec, part));
    std::error_code ec;
    if (rc != 0) fs::remove(part, ec);
    if (rc != 0 || !keep_if_complete(dir, rel, part))
      throw Error("gnuplot failed (exit status " + std::to_string(rc) +
                  "; is gnuplot-nox installed, is the disk full?)");
    entry["file"] = rel;
  } catch (const std::exception& e) {
    entry["error"] = e.what();
  }
  return entry;
}

// One gnuplot process draws them all: its start-up (loading cairo, pango, fontconfig) cost more than
// drawing a figure, and a report has dozens. `reset session` before each figure gives it gnuplot's
// defaults, so it is drawn as it would be alone (the same bytes: tests/test_figures.cpp), and `unset
// output` completes its file. A figure whose file the shared process did not complete (gnuplot rejected
// its script and went on to the next; or the process died, leaving the rest undrawn) is drawn again
// alone, for its own error.
std::vector<nlohmann::json> render_figures(const std::string& dir, const std::vector<FigureJob>& jobs) {
  std::vector<nlohmann::json> entries(jobs.size());
  std::vector<std::string> parts(jobs.size());  // the shared process's file for each job it draws, else ""
  size_t n_shared = 0;
  std::string script;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& [rel, spec] = jobs[i];
    try {
      if (!undrawable(spec).empty()) continue;  // render_figure writes the text
      const std::string part = part_path(dir, rel);
      std::error_code ec;
      fs::remove(part, ec);
      script += "reset session\n" + gnuplot_script(spec, part) + "unset output\n";
      parts[i] = part;
      ++n_shared;
    } catch (const std::exception&) {  // render_figure reports it
    }
  }
  if (n_shared > 1) {
    try {
      run_gnuplot(script);             // the exit status is a whole run's; each figure is judged by its own file
    } catch (const std::exception&) {  // each figure alone, below, reports it
    }
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& [rel, spec] = jobs[i];
    if (n_shared > 1 && !parts[i].empty() && keep_if_complete(dir, rel, parts[i])) {
      entries[i] = entry_for(spec);
      entries[i]["file"] = rel;
    } else {
      entries[i] = render_figure(dir, rel, spec);
    }
  }
  return entries;
}

// A figure whose axis "value_axis" ("x" or "y") is in the claim's measured value's units gets the rule's
// threshold on it ("threshold >= 0.9"; both bounds of a range) and each negative control's value (the mean
// over its seeds, "control init: 0.012"), so that the figure shows how far the model and its controls
// stand from the line the verdict is drawn at.
namespace {

void mark_rule_and_controls(nlohmann::json& spec, const nlohmann::json& claim) {
  // An intervention's drop (`effect: drop`) is a difference of two accuracies, not in the axis's units.
  if (claim.contains("measure") && claim["measure"].contains("params") &&
      claim["measure"]["params"].value("effect", "") == "drop")
    return;
  const std::string lines = spec["value_axis"] == "x" ? "vlines" : "hlines";
  if (claim.contains("threshold") && claim["threshold"]["value"].is_number()) {
    const auto& t = claim["threshold"];
    if (t.contains("high")) {
      spec[lines].push_back({{"at", t["value"]}, {"label", "threshold: from " + num(t["value"].get<double>())}});
      spec[lines].push_back({{"at", t["high"]}, {"label", "threshold: to " + num(t["high"].get<double>())}});
    } else {
      spec[lines].push_back(
          {{"at", t["value"]},
           {"label", "threshold " + t["op"].get<std::string>() + " " + num(t["value"].get<double>())}});
    }
  }
  for (const auto& c : claim.value("controls", nlohmann::json::array())) {
    double sum = 0;
    int n = 0;
    for (const auto& s : c.value("seeds", nlohmann::json::array()))
      if (s.contains("value") && s["value"].is_number()) sum += s["value"].get<double>(), ++n;
    if (n == 0) continue;
    spec[lines].push_back(
        {{"at", sum / n}, {"label", "control " + c.value("control", std::string()) + ": " + num(sum / n)}});
  }
}

}  // namespace

std::vector<FigureJob> claim_figure_jobs(const nlohmann::json& claim, const nlohmann::json& phase_marks) {
  std::vector<FigureJob> jobs;
  if (!claim.contains("seeds")) return jobs;
  // figure id -> [(seed, spec)], in the order the kind declared them
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<uint64_t, nlohmann::json>>> by_id;
  for (const auto& s : claim["seeds"]) {
    if (!s.contains("details") || !s["details"].contains("figures")) continue;
    for (const auto& f : s["details"]["figures"]) {
      const std::string id = text(f, "id");
      if (!by_id.count(id)) order.push_back(id);
      by_id[id].push_back({s["seed"].get<uint64_t>(), f});
    }
  }
  for (const auto& id : order) {
    nlohmann::json spec = combine(by_id[id]);
    if (!spec.contains("paper_figure") && claim.contains("paper") && claim["paper"].is_object())
      spec["paper_figure"] = claim["paper"].value("figure", "");
    if (spec.value("mark_phase_windows", false))
      for (const auto& m : phase_marks) spec["vlines"].push_back(m);
    if (spec.contains("value_axis")) mark_rule_and_controls(spec, claim);
    // The paper's number as a line, where the kind asks for it ("mark_reported": "vline"/"hline").
    if (spec.contains("mark_reported") && claim.contains("reported") && claim["reported"]["value"].is_number()) {
      const std::string kind = spec["mark_reported"] == "vline" ? "vlines" : "hlines";
      spec[kind].push_back(
          {{"at", claim["reported"]["value"]}, {"label", "paper: " + claim["reported"]["text"].get<std::string>()}});
    }
    jobs.push_back({"figures/" + claim["id"].get<std::string>() + "-" + id + ".png", spec});
  }
  return jobs;
}

nlohmann::json claim_figures(const std::string& dir, const nlohmann::json& claim, const nlohmann::json& phase_marks) {
  nlohmann::json figures = nlohmann::json::array();
  for (auto& entry : render_figures(dir, claim_figure_jobs(claim, phase_marks))) figures.push_back(std::move(entry));
  return figures;
}

}  // namespace cc::report
