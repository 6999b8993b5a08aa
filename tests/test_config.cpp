// Typed config: presets, overrides, unknown keys with suggestions, type errors with file:line,
// cross-field validation, and the canonical YAML / id round trip.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/config/config.hpp"

namespace fp4lab {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("fp4lab_test_config_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(Config, DefaultsAreValid) {
  ConfigBuilder b;
  EXPECT_NO_THROW(b.build());
}

TEST(Config, PresetsExpandAndLaterLayersWin) {
  ConfigBuilder b;
  b.add_file(std::string(FP4LAB_SOURCE_DIR) + "/experiments/base/default.yaml");
  b.add_override("recipe=nvfp4");
  b.add_override("recipe.quantized.fprop_w.tile=1d");
  b.add_override("model=small");
  const Config c = b.build();
  EXPECT_EQ(c.recipe.name, "nvfp4");
  EXPECT_EQ(c.model.d_model, 192);
  EXPECT_EQ(c.recipe.quantized.fprop_x.element, ElementFormat::fp4_e2m1);
  EXPECT_EQ(c.recipe.quantized.fprop_x.block, 16);
  EXPECT_EQ(c.recipe.quantized.fprop_x.scale, ScaleFormat::e4m3);
  EXPECT_EQ(c.recipe.quantized.fprop_w.tile, Tile::d1);  // the override came after the preset
  EXPECT_EQ(c.recipe.quantized.dgrad_w.tile, Tile::d2);
  EXPECT_EQ(c.recipe.quantized.wgrad_dy.rounding, Rounding::sr);
  EXPECT_TRUE(c.recipe.quantized.wgrad_x.rht);
  EXPECT_FALSE(c.recipe.quantized.fprop_x.rht);
  EXPECT_EQ(c.recipe.high_precision.fprop_x.element, ElementFormat::bf16);
}

TEST(Config, UnknownKeySuggestsClosest) {
  const auto path = write_temp("unknown.yaml", "model:\n  d_modle: 64\n");
  ConfigBuilder b;
  b.add_file(path);
  const std::string msg = error_of([&] { b.build(); });
  EXPECT_NE(msg.find(path + ":2:12"), std::string::npos) << msg;
  EXPECT_NE(msg.find("model.d_modle"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'model.d_model'"), std::string::npos) << msg;
}

TEST(Config, WrongTypeNamesKeyAndLine) {
  const auto path = write_temp("type.yaml", "train:\n  seed: 1\n  batch_size: many\n");
  ConfigBuilder b;
  b.add_file(path);
  const std::string msg = error_of([&] { b.build(); });
  EXPECT_NE(msg.find(path + ":3:15: key 'train.batch_size': expected an integer"), std::string::npos) << msg;
}

TEST(Config, ImpossibleCombinationsNameTheKey) {
  {
    const auto path = write_temp("heads.yaml", "model:\n  d_model: 64\n  n_heads: 5\n");
    ConfigBuilder b;
    b.add_file(path);
    const std::string msg = error_of([&] { b.build(); });
    EXPECT_NE(msg.find(path + ":3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("model.n_heads"), std::string::npos) << msg;
  }
  {
    const auto path = write_temp("block.yaml", "recipe: nvfp4\nrecipe.quantized.fprop_x.block: 48\n");
    ConfigBuilder b;
    b.add_file(path);
    const std::string msg = error_of([&] { b.build(); });
    EXPECT_NE(msg.find(path + ":2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("recipe.quantized.fprop_x.block"), std::string::npos) << msg;
  }
  {
    ConfigBuilder b;
    b.add_override("recipe=bf16");
    b.add_override("recipe.quantized.fprop_x.rounding=sr");
    const std::string msg = error_of([&] { b.build(); });
    EXPECT_NE(msg.find("recipe.quantized.fprop_x.rounding"), std::string::npos) << msg;
  }
  {
    ConfigBuilder b;
    EXPECT_NE(error_of([&] { b.add_override("recipe=nvfp5"); }).find("unknown preset 'nvfp5'"), std::string::npos);
  }
}

TEST(Config, CanonicalYamlRoundTripsAndIdIsStable) {
  ConfigBuilder b;
  b.add_override("recipe=nvfp4");
  b.add_override("optim.lr=0.002");
  const Config c = b.build();
  ConfigBuilder again;
  again.add_tree(parse_yaml_string(canonical_yaml(c), "canonical"));
  const Config c2 = again.build();
  EXPECT_EQ(canonical_yaml(c), canonical_yaml(c2));
  EXPECT_EQ(config_id(c), config_id(c2));
  EXPECT_EQ(config_id(c).size(), 12u);
  ConfigBuilder other;
  other.add_override("optim.lr=2e-3");  // same value, different spelling, different order
  other.add_override("recipe=nvfp4");
  EXPECT_EQ(config_id(other.build()), config_id(c));
  ConfigBuilder changed;
  changed.add_override("recipe=nvfp4");
  changed.add_override("optim.lr=0.003");
  EXPECT_NE(config_id(changed.build()), config_id(c));
}

TEST(Config, EveryNamedRecipeResolves) {
  for (const auto& name : preset_names("recipe")) {
    ConfigBuilder b;
    b.add_override("recipe=" + name);
    EXPECT_NO_THROW(b.build()) << name;
  }
  EXPECT_GE(preset_names("recipe").size(), 7u);
}

}  // namespace
}  // namespace fp4lab
