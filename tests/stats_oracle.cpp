// claimcheck's statistics as a filter, for tests/stats_oracle.py to check against SciPy: one JSON
// request a line on stdin, one JSON answer a line on stdout.
//   {"fn": "wilson", "k": K, "n": N}                    -> {"low", "high"}
//   {"fn": "t", "values": [...]}                         -> {"low", "high"}
//   {"fn": "order", "values": [...]}                     -> {"low", "high", "coverage"}
//   {"fn": "range_coverage", "n": N}                     -> {"coverage"}
//   {"fn": "jackknife_se", "values": [...]}              -> {"se"}   (values: leave-one-out statistics)
//   {"fn": "t_critical_95", "df": D}                     -> {"t"}
//   {"fn": "mann_whitney_less", "a": [...], "b": [...]}  -> {"u", "p"}
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/common.h"
#include "claims/attribution.h"
#include "claims/stats.h"

int main() {
  using namespace cc;
  std::string line;
  while (std::getline(std::cin, line)) {
    const auto q = nlohmann::json::parse(line);
    const std::string fn = q.at("fn");
    nlohmann::json a;
    if (fn == "wilson") {
      const auto ci = claims::wilson(q.at("k").get<int64_t>(), q.at("n").get<int64_t>());
      a = {{"low", ci.low}, {"high", ci.high}};
    } else if (fn == "t") {
      const auto ci = claims::student_t_interval(q.at("values").get<std::vector<double>>());
      a = {{"low", ci.low}, {"high", ci.high}};
    } else if (fn == "order") {
      double coverage = 0;
      const auto ci = claims::median_order_interval(q.at("values").get<std::vector<double>>(), 0.95, coverage);
      a = {{"low", ci.low}, {"high", ci.high}, {"coverage", coverage}};
    } else if (fn == "range_coverage") {
      a = {{"coverage", claims::range_coverage(q.at("n").get<size_t>())}};
    } else if (fn == "jackknife_se") {
      a = {{"se", analysis::jackknife_se(q.at("values").get<std::vector<double>>())}};
    } else if (fn == "t_critical_95") {
      a = {{"t", analysis::t_critical_95(q.at("df").get<int64_t>())}};
    } else if (fn == "mann_whitney_less") {
      const auto mw =
          claims::mann_whitney_less(q.at("a").get<std::vector<double>>(), q.at("b").get<std::vector<double>>());
      a = {{"u", mw.u}, {"p", mw.p}};
    } else {
      std::cerr << "stats_oracle: unknown fn '" << fn << "'\n";
      return 2;
    }
    std::cout << a.dump() << "\n";
  }
  return 0;
}
