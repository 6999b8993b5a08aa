// Value tree and YAML I/O: locations, typed reads, errors with file:line.
#include <gtest/gtest.h>

#include "core/config/value.hpp"

namespace fp4lab {

TEST(ConfigValue, ParsesWithLocations) {
  Value v = parse_yaml_string("a: 1\nb:\n  c: [x, \"16\"]\n", "t.yaml");
  ASSERT_TRUE(v.is_map());
  EXPECT_EQ(v.find("a")->as_int("a"), 1);
  const Value* c = v.find("b")->find("c");
  ASSERT_TRUE(c && c->is_list());
  EXPECT_EQ(c->items()[0].text(), "x");
  EXPECT_TRUE(c->items()[1].quoted());
  EXPECT_EQ(c->loc().line, 3);
  EXPECT_EQ(v.entries()[1].key_loc.str(), "t.yaml:2:1");
}

TEST(ConfigValue, TypedReadErrorsNameKeyAndLine) {
  Value v = parse_yaml_string("x: 1\nlr: fast\n", "g.yaml");
  try {
    v.find("lr")->as_double("optim.lr");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "g.yaml:2:5: key 'optim.lr': expected a number, got 'fast'");
  }
  EXPECT_EQ(parse_yaml_string("n: 1e6", "s").find("n")->as_int("n"), 1000000);
  EXPECT_THROW(parse_yaml_string("n: 1.5", "s").find("n")->as_int("n"), ConfigError);
}

TEST(ConfigValue, SyntaxErrorAndDuplicateKeyAreConfigErrors) {
  EXPECT_THROW(parse_yaml_string("a: [1, 2\nb: 3\n", "bad.yaml"), ConfigError);
  EXPECT_THROW(parse_yaml_string("a: 1\na: 2\n", "dup.yaml"), ConfigError);
}

}  // namespace fp4lab
