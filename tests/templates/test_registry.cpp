#include <gtest/gtest.h>

#include "histtune/templates/registry.hpp"

using histtune::templates::get;

TEST(TemplateRegistry, EmbedsEveryTemplateWithItsSource) {
  const auto& t = get("hist1d.cuh");
  EXPECT_NE(t.source.find("histtune_hist1d"), std::string_view::npos);
  EXPECT_EQ(t.hash.size(), 16u);
  EXPECT_NE(get("read_floor.cuh").source.find("histtune_read_floor"), std::string_view::npos);
}

TEST(TemplateRegistry, HashesDifferBetweenTemplates) {
  EXPECT_NE(get("hist1d.cuh").hash, get("read_floor.cuh").hash);
}

TEST(TemplateRegistry, UnknownTemplateNamesTheKnownOnes) {
  try {
    get("nope.cuh");
    FAIL() << "expected an exception";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("hist1d.cuh"), std::string::npos) << e.what();
  }
}
