// Config files: wrong input is reported with FILE:LINE:COL and what was expected.
#include <gtest/gtest.h>

#include "papers/assign_and_add/module/task/config.h"
#include "util/yaml_json.h"

using cc::Error;
using cc::ObjectReader;
using cc::assign_and_add::task::TaskConfig;

namespace {

std::string error_of(const std::string& yaml) {
  try {
    auto doc = cc::load_yaml_string(yaml, "cfg.yaml");
    TaskConfig::from_yaml(ObjectReader(doc, ""));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Config, DefaultsWhenEmpty) {
  auto doc = cc::load_yaml_string("{}", "x.yaml");
  auto c = TaskConfig::from_yaml(ObjectReader(doc, ""));
  EXPECT_EQ(c.modulus, 59);
  EXPECT_DOUBLE_EQ(c.pair_fraction, 0.7);
}

TEST(Config, ErrorsNameFileLineAndField) {
  EXPECT_EQ(error_of("modulus: 59\npair_fraction: lots\n"),
            "cfg.yaml:2:16: field 'pair_fraction': expected a number, got a string");
  EXPECT_EQ(error_of("modulus: 59\nmodulo: 3\n"),
            "cfg.yaml:2:9: field 'modulo': unknown field; expected one of 'family', 'modulus', 'n_variables', "
            "'pair_fraction', "
            "'pair_seed', 'restricted_first', 'restricted_second', 'ratio_2var_to_0var', 'weight_1var', "
            "'assignments_min', 'assignments_max', 'allow_same_variable'");
  EXPECT_EQ(error_of("modulus: [1\n"), error_of("modulus: [1\n"));  // deterministic
  EXPECT_NE(error_of("modulus: [1\n").find("cfg.yaml:2:1: YAML syntax error"), std::string::npos)
      << error_of("modulus: [1\n");
  EXPECT_NE(error_of("modulus: 59\nmodulus: 60\n").find("cfg.yaml:2:1: duplicate key 'modulus'"), std::string::npos);
  EXPECT_NE(error_of("pair_fraction: 1.5\n").find("pair_fraction must be in (0, 1]"), std::string::npos);
  EXPECT_NE(error_of("restricted_first: [a, z]\n").find("'z' is not a variable name"), std::string::npos);
  EXPECT_NE(error_of("- 1\n- 2\n").find("must be a mapping"), std::string::npos);
  EXPECT_NE(error_of("n_variables: \"12\"\n").find("expected an integer, got a string"), std::string::npos);
}

// The hostile-input classes of claim files reach run configs through the same loader.
TEST(Config, HostileInputsAreBoundedErrors) {
  // An integer past int: refused before any narrowing could turn it into a valid value.
  EXPECT_EQ(error_of("modulus: 4294967355\n"), "cfg.yaml:1:10: field 'modulus': 4294967355 is outside [2, 1000]");
  EXPECT_EQ(error_of("modulus: !!int 59\n"),
            "cfg.yaml:1:10: explicit YAML tag '!!int' is not accepted: write the value plainly");
  EXPECT_NE(error_of("modulus: 59\n---\nmodulus: 60\n").find("cfg.yaml:2:1: a second YAML document"), std::string::npos)
      << error_of("modulus: 59\n---\nmodulus: 60\n");
  // yaml-cpp 0.7's LoadAll loops forever on a lone ',' (found by fuzz.claim): a syntax error here.
  EXPECT_EQ(error_of(","), "cfg.yaml:1:1: YAML syntax error: unexpected token");
  EXPECT_EQ(error_of(",id:"), "cfg.yaml:1:1: YAML syntax error: unexpected token");
  EXPECT_EQ(error_of("modulus: 59\n,\n").substr(0, 10), "cfg.yaml:2");
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 10; ++k) laughs += ", " + prev;
    laughs += "]\n";
  }
  EXPECT_NE(error_of(laughs).find("expands to more than 100000 values"), std::string::npos) << error_of(laughs);
  EXPECT_NE(error_of("modulus: " + std::string(70000, '9') + "\n").find("a value of 70000 characters (at most 65536)"),
            std::string::npos);
}

TEST(Config, QuotedScalarsStayStrings) {
  auto doc = cc::load_yaml_string("a: \"3\"\nb: 3\nc: 3.5\nd: true\ne: ~\n", "x.yaml");
  EXPECT_TRUE(doc.value["a"].is_string());
  EXPECT_TRUE(doc.value["b"].is_number_integer());
  EXPECT_TRUE(doc.value["c"].is_number_float());
  EXPECT_TRUE(doc.value["d"].is_boolean());
  EXPECT_TRUE(doc.value["e"].is_null());
}
