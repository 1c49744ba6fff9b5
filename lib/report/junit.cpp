// junit.xml and the exit status (report/outcome.h): one rule for both. The XML follows the JUnit
// schema as ctest's --output-junit and pytest write it: one <testsuite> per paper, a <failure> for a
// test that ran and did not hold, an <error> for one that could not be judged, <skipped> for one not
// run; the counts are those of the elements; names and classnames are ctest's (claim.PAPER.ID).
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>

#include "claims/verifier.h"
#include "report/baseline.h"
#include "report/outcome.h"

namespace cc::report {
namespace {

// Text for an XML attribute or element: the five special characters escaped, and the control
// characters XML 1.0 does not allow replaced by a space.
std::string xml_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else if (c == '\'')
      out += "&apos;";
    else if (u < 0x20 && c != '\t' && c != '\n' && c != '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string describe(const std::vector<const Change*>& changes) {
  std::string out = "changed from the baseline:";
  for (const Change* c : changes)
    out +=
        " " + c->kind + " " + c->before + " -> " + c->after + (c->detail.empty() ? "" : " (" + c->detail + ")") + ";";
  out.pop_back();
  return out;
}

ClaimOutcome judged(const Report& rep, const claims::ClaimResult& r, const std::vector<const Change*>& changes) {
  ClaimOutcome o{r.id, &r, TestOutcome::Pass, "", ""};
  const std::string verdict = claims::verdict_name(r.verdict);
  const std::string finding = verdict + ": " + r.reason;
  const bool counted = r.verdict == claims::Verdict::Error || r.verdict == claims::Verdict::Invalid ||
                       ((r.verdict == claims::Verdict::Fail || r.verdict == claims::Verdict::Inconclusive) &&
                        rep.context.fail_on != "error");
  if (rep.baseline && !changes.empty()) {
    o.outcome = TestOutcome::Failure;
    o.message = describe(changes);
  } else if (r.verdict == claims::Verdict::Skipped) {
    o.outcome = TestOutcome::Skipped;
    o.message = r.reason;
  } else if (r.verdict == claims::Verdict::Pass) {
  } else if (rep.baseline) {
    o.finding = "expected " + verdict + " (in the baseline): " + r.reason;
  } else if (!counted) {
    o.finding = finding + " (not counted: --fail-on error)";
  } else {
    o.outcome = r.verdict == claims::Verdict::Error || r.verdict == claims::Verdict::Invalid ? TestOutcome::Error
                                                                                             : TestOutcome::Failure;
    o.message = finding;
  }
  return o;
}

void write_properties(std::ostream& x, const claims::ClaimResult& r, bool expected) {
  x << "    <properties>\n      <property name=\"verdict\" value=\"" << claims::verdict_name(r.verdict) << "\"/>\n";
  if (expected) x << "      <property name=\"expected\" value=\"true\"/>\n";
  if (!r.seeds.empty()) {
    x << "      <property name=\"measured\" value=\"" << r.measured << "\"/>\n";
    x << "      <property name=\"ci_low\" value=\"" << r.measured_ci.low << "\"/>\n";
    x << "      <property name=\"ci_high\" value=\"" << r.measured_ci.high << "\"/>\n";
  }
  if (r.loaded && r.claim.reported) x << "      <property name=\"reported\" value=\"" << *r.claim.reported << "\"/>\n";
  if (r.loaded) x << "      <property name=\"rule\" value=\"" << xml_text(r.claim.rule.describe()) << "\"/>\n";
  x << "    </properties>\n";
}

void write_case(std::ostream& x, const Report& rep, const ClaimOutcome& o) {
  const std::string name = xml_text(test_name(rep, o.id));
  x << "  <testcase name=\"" << name << "\" classname=\"" << name << "\" time=\"" << (o.result ? o.result->seconds : 0)
    << "\">\n";
  if (o.result) write_properties(x, *o.result, !o.finding.empty() && rep.baseline);
  const std::string message = xml_text(o.message);
  if (o.outcome == TestOutcome::Failure)
    x << "    <failure message=\"" << message << "\">" << message << "</failure>\n";
  if (o.outcome == TestOutcome::Error) x << "    <error message=\"" << message << "\">" << message << "</error>\n";
  if (o.outcome == TestOutcome::Skipped) x << "    <skipped message=\"" << message << "\"/>\n";
  if (!o.finding.empty()) x << "    <system-out>" << xml_text(o.finding) << "</system-out>\n";
  x << "  </testcase>\n";
}

}  // namespace

std::vector<ClaimOutcome> claim_outcomes(const Report& rep) {
  std::map<std::string, std::vector<const Change*>> changed;
  std::vector<std::string> order;  // the baseline's claims this run lost, in the order of its changes
  if (rep.baseline)
    for (const auto& c : rep.baseline->changes) {
      if (changed[c.id].empty()) order.push_back(c.id);
      changed[c.id].push_back(&c);
    }
  std::vector<ClaimOutcome> out;
  std::set<std::string> measured;
  for (const auto& r : rep.claims) {
    measured.insert(r.id);
    out.push_back(judged(rep, r, changed[r.id]));
  }
  for (const auto& id : order)
    if (!measured.count(id)) out.push_back({id, nullptr, TestOutcome::Failure, describe(changed[id]), ""});
  return out;
}

int exit_status(const Report& rep) {
  bool counted = false, all_skipped = !rep.claims.empty();
  for (const auto& o : claim_outcomes(rep)) {
    counted = counted || o.outcome == TestOutcome::Failure || o.outcome == TestOutcome::Error;
    all_skipped = all_skipped && o.outcome == TestOutcome::Skipped;
  }
  if (counted) return rep.baseline ? kExitBaselineChanged : 1;
  return all_skipped ? claims::kExitSkipped : 0;
}

std::string test_name(const Report& rep, const std::string& id) {
  return "claim." + (rep.context.paper_name.empty() ? std::string("claimcheck") : rep.context.paper_name) + "." + id;
}

std::string to_junit(const Report& rep) {
  const auto outcomes = claim_outcomes(rep);
  std::map<TestOutcome, int> n;
  for (const auto& o : outcomes) ++n[o.outcome];
  std::ostringstream counts;
  counts << "tests=\"" << outcomes.size() << "\" failures=\"" << n[TestOutcome::Failure] << "\" errors=\""
         << n[TestOutcome::Error] << "\" skipped=\"" << n[TestOutcome::Skipped] << "\" time=\"" << rep.context.wall_s
         << "\"";
  const std::string suite =
      xml_text(rep.context.paper_name.empty() ? std::string("claimcheck") : rep.context.paper_name);
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"claimcheck\" " << counts.str() << ">\n"
    << "<testsuite name=\"" << suite << "\" " << counts.str() << ">\n";
  for (const auto& o : outcomes) write_case(x, rep, o);
  x << "</testsuite>\n</testsuites>\n";
  return valid_utf8(x.str());
}

std::string junit_for_error(const std::string& command, const std::string& message, int exit_status) {
  const std::string name = xml_text(command);
  const std::string text = xml_text(message + " (exit " + std::to_string(exit_status) + ")");
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<testsuites name=\"claimcheck\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n"
    << "<testsuite name=\"claimcheck\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n"
    << "  <testcase name=\"" << name << "\" classname=\"" << name << "\" time=\"0\">\n"
    << "    <error message=\"" << text << "\">" << text << "</error>\n"
    << "  </testcase>\n</testsuite>\n</testsuites>\n";
  return valid_utf8(x.str());
}

}  // namespace cc::report
