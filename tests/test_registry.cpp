// The registries a paper module registers into (util/registry.h): a name is registered once, an
// unknown name is answered with what exists and the nearest match, and nothing registers late.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/registry.h"
#include "plugin/paper_module.h"
#include "train/family.h"
#include "util/error.h"
#include "util/registry.h"

using namespace cc;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

analysis::MeasurementKind kind_named(const std::string& name) {
  return analysis::MeasurementKind(
      name, analysis::Statistic::Scalar, [](const analysis::MeasureInput&) { return analysis::Measurement{}; },
      "a kind for the test");
}

}  // namespace

TEST(Registry, ADuplicateNameNamesBothOrigins) {
  analysis::Registry r;
  r.set_module("papers/first/module", {"first_task"});
  r.add(kind_named("twice"));
  r.set_module("papers/second/module", {"second_task"});
  const std::string e = error_of([&] { r.add(kind_named("twice")); });
  EXPECT_NE(e.find("measurement kind 'twice' is registered twice: by papers/first/module and by papers/second/module"),
            std::string::npos)
      << e;
}

// A module's kind reads its module's families, or those it names; with neither it would read any run
// (indexing one paper's positions in another's model), so it is refused when registered. A theory kind
// reads no checkpoint and needs none; the engine's kinds read any run through the family's interface.
TEST(Registry, AModulesCheckpointKindWithoutAFamilyIsRefused) {
  analysis::Registry r;
  r.add(kind_named("engine_kind"));  // the engine's: any run
  r.set_module("papers/familyless/module", {});
  const std::string e = error_of([&] { r.add(kind_named("orphan")); });
  EXPECT_NE(e.find("measurement kind 'orphan' from papers/familyless/module reads checkpoints, but its module "
                   "registers no task family and the kind names none"),
            std::string::npos)
      << e;
  EXPECT_EQ(r.find("orphan"), nullptr);
  auto named = kind_named("names_its_family");
  named.families = {"some_task"};
  r.add(std::move(named));
  EXPECT_EQ(r.find("names_its_family")->families, std::vector<std::string>{"some_task"});
}

TEST(Registry, AnUnknownNameListsWhatExistsAndTheNearest) {
  NamedRegistry<int> r("widget");
  r.add("attention_to", 1, "here");
  r.add("accuracy", 2, "here");
  EXPECT_EQ(error_of([&] { r.get("acuracy"); }),
            "unknown widget 'acuracy' (registered: accuracy, attention_to), did you mean 'accuracy'?");
  // Nothing near: no guess.
  EXPECT_EQ(error_of([&] { r.get("zzzzzzzzzz"); }), "unknown widget 'zzzzzzzzzz' (registered: accuracy, attention_to)");
  EXPECT_EQ(nearest_name("M8", {"M2", "M8a", "M8b", "M9"}), "M8a");  // a name it starts is nearer than M2
  EXPECT_EQ(did_you_mean("M8", {"M2", "M8a", "M8b", "M9"}), ", did you mean 'M8a' or 'M8b'?");
}

TEST(Registry, ARegistrationAfterTheFreezeIsAnError) {
  NamedRegistry<int> r("widget");
  r.add("a", 1, "here");
  r.freeze("the test read it");
  const std::string e = error_of([&] { r.add("b", 2, "papers/late/module"); });
  EXPECT_NE(e.find("widget 'b' from papers/late/module is registered after the registry was frozen (the test read it)"),
            std::string::npos)
      << e;
  EXPECT_EQ(r.find("b"), nullptr);
}

// The binary's own registries: the modules registered at start-up (link_modules.cpp); once a kind or a
// run has been read, a module that registers more is refused, never silently missed.
TEST(Registry, ALateModuleIsRefusedByTheKindsAndTheFamilies) {
  ASSERT_NE(analysis::builtin_registry().find("accuracy"), nullptr);
  const plugin::ModuleRegistrar late("late_paper");
  const std::string kinds = error_of([&] { late.add_kinds([](analysis::Registry& r) { r.add(kind_named("late")); }); });
  EXPECT_NE(kinds.find("measurement kinds from papers/late_paper/module are registered after the registry was frozen"),
            std::string::npos)
      << kinds;
  EXPECT_EQ(analysis::builtin_registry().find("late"), nullptr);

  ASSERT_FALSE(train::family_names().empty());  // a lookup: the families are frozen from here on
  train::TaskFamily f;
  f.name = "late_family";
  const std::string families = error_of([&] { late.add_family(f); });
  EXPECT_NE(
      families.find("task family 'late_family' from papers/late_paper/module is registered after the registry was "
                    "frozen"),
      std::string::npos)
      << families;
}

TEST(Registry, TheLinkedModulesAreThePapersWithAModule) {
  const auto& papers = plugin::linked_modules();
  EXPECT_NE(std::find(papers.begin(), papers.end(), "assign_and_add"), papers.end());
  EXPECT_NE(std::find(papers.begin(), papers.end(), "nanda_grokking"), papers.end());
  EXPECT_EQ(analysis::builtin_registry().origin("accuracy"), "the engine (lib/analysis)");
  EXPECT_EQ(analysis::builtin_registry().origin("attention_targets"), "papers/assign_and_add/module");
}

// Each kind's parameters as typed data, read from its own parser in recording mode: every field a parser
// reads is named in the kind's prose (`claimcheck kinds`, docs/claim-files.md), so the prose cannot leave
// one out; and every parser reads to its end on placeholders (`parameters_complete`: its rules across
// fields are not checked while it describes). (The reverse is not checked: several kinds' prose is one
// sentence, not a line per field.)
TEST(Registry, EveryKindsParametersAreTypedDataItsDocNames) {
  const auto& registry = analysis::builtin_registry();
  int described = 0;
  for (const auto& name : registry.names()) {
    const auto& kind = *registry.find(name);
    const auto p = analysis::parameter_fields(kind);
    described += p.complete;
    EXPECT_TRUE(p.complete) << name << "'s parser stopped on a placeholder before reading every field";
    if (kind.params_doc != "(none)") EXPECT_FALSE(p.fields.empty()) << name << " documents parameters it never reads";
    for (const auto& f : p.fields) {
      const std::string field = f["name"];
      EXPECT_NE(kind.params_doc.find(field.substr(0, field.find('.'))), std::string::npos)
          << name << " reads '" << field << "', which its parameters doc does not name:\n"
          << kind.params_doc;
      EXPECT_TRUE(f.contains("type") && f.contains("required")) << f.dump();
    }
  }
  EXPECT_EQ(described, static_cast<int>(registry.names().size()));
  // A required list (reset_accuracy_drop's parameters to reset) is typed as required, not as a default [].
  const auto reset = analysis::parameter_fields(*registry.find("reset_accuracy_drop")).fields;
  ASSERT_FALSE(reset.empty());
  EXPECT_EQ(reset[0]["name"], "reset");
  EXPECT_EQ(reset[0]["type"], "strings");
  EXPECT_EQ(reset[0]["required"], true);
  const auto accuracy = analysis::parameter_fields(*registry.find("accuracy")).fields;
  ASSERT_EQ(accuracy.size(), 3u);
  EXPECT_EQ(accuracy[0]["name"], "set");
  EXPECT_EQ(accuracy[0]["type"], "one_of");
  EXPECT_EQ(accuracy[0]["required"], true);
  const auto& sets = accuracy[0]["allowed"];
  EXPECT_NE(std::find(sets.begin(), sets.end(), "in_context"), sets.end()) << sets.dump();
  EXPECT_EQ(accuracy[1]["name"], "size");
  EXPECT_EQ(accuracy[1]["type"], "integer");
  EXPECT_EQ(accuracy[1]["default"], 10000);
}
