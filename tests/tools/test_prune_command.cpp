// `histtune prune`: --dry-run lists what would go and leaves the file as it was; a prune says
// how many rows of each table it deleted, and why.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "cli_runner.hpp"

namespace {

using histtune::test::fixture;
using histtune::test::read_text;
using histtune::test::run_cli;
using histtune::test::run_cli_split;
using histtune::test::ScratchDir;

TEST(PruneCommand, DryRunListsWhatWouldGoAndDeletesNothing) {
  ScratchDir dir("histtune_prune_dry");
  const std::string db = dir / "a.db";
  ASSERT_EQ(run_cli("import " + fixture("small_export.json") + " --db " + db).rc, 0);
  const std::string before = read_text(db);
  auto r = run_cli("prune --dry-run --db " + db);
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const char* s :
       {"would delete 6 rows of", "2 measurements, 1 winners, 0 per-distribution winners, 1 "
        "problems and 2 configurations", "why: measured with another kernel template",
        "Fixture H100 u8 direct bins=256 n=2^28: winner tpb1024.vpt2.vec16.pc1.lay1.agg0.u1.pad0.bps2 "
        "(kernel template h, now", "2 measurements", "nothing was deleted"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_EQ(read_text(db), before);
  EXPECT_FALSE(std::filesystem::exists(db + "-wal"));

  r = run_cli_split("prune --dry-run --json --db " + db);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dry_run"], true);
  EXPECT_EQ(j["deleted_rows"], 0);
  EXPECT_EQ(j["rows"]["measurements"], 2);
  EXPECT_EQ(j["listed"].size(), 1u);
  EXPECT_EQ(read_text(db), before);

  r = run_cli("prune --db " + db);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("pruned 6 rows from"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 measurements, 1 winners"), std::string::npos) << r.out;
  r = run_cli("show --db " + db);
  EXPECT_NE(r.out.find("no winners stored"), std::string::npos) << r.out;
}

}  // namespace
