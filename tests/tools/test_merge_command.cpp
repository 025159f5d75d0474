// `histtune merge`: two winners of one (device, problem) are not judged by medians recorded in
// two runs. Without a GPU of that kind the stored one is kept, and the command says so.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "gpu.hpp"
#include "histtune/db/database.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"

namespace {

using histtune::test::run_cli;
using histtune::test::run_cli_split;
using histtune::test::ScratchDir;

const histtune::db::DeviceRow kDevice{"GPU-merge", "Fixture GPU never present", 9, 0, 132, 1, 1,
                                      13000, 13000};
const histtune::db::ProblemRow kProblem{"hist1d", "u8", "direct", 256, 1u << 20};

void store_winner(const std::string& path, const std::string& label, double ms) {
  histtune::db::Database db(path);
  db.set_winner(kDevice, kProblem, label, ms, "h", "0.1.0");
}

TEST(MergeCommand, WithoutAGpuOfThatKindTheStoredWinnerIsKeptAndSaid) {
  ScratchDir dir("histtune_merge_conflict");
  const std::string ours = dir / "ours.db", theirs = dir / "theirs.db";
  store_winner(ours, "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad1.bps4", 0.02);
  store_winner(theirs, "tpb512.vpt2.vec0.pc1.lay0.agg0.u0.pad1.bps4", 0.01);  // "faster"
  auto r = run_cli("merge " + theirs + " --db " + ours);
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const char* s : {"u8 direct bins=256 n=2^20 on GPU-merge: kept tpb256.vpt1",
                        "medians of two runs are not comparable",
                        "no Fixture GPU never present is here to re-time both"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_EQ(histtune::db::Database(ours).winner("GPU-merge", kProblem)->config_label,
            "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad1.bps4");
  r = run_cli_split("merge --json " + theirs + " --db " + ours);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["winner_conflicts"].size(), 1u) << r.out;
  EXPECT_EQ(j["winner_conflicts"][0]["retimed"], false);
  EXPECT_EQ(j["winner_conflicts"][0]["stored"], "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad1.bps4");
}

// With a GPU of that kind here, both winners are timed side by side and the faster kept.
TEST(MergeCommand, OnAGpuOfThatKindBothWinnersAreRetimed) {
  HT_REQUIRE_GPU();
  ScratchDir dir("histtune_merge_retime");
  const histtune::db::DeviceRow gpu = histtune::query_device(0).row();
  const std::string hash = histtune::templates::get(histtune::hist1d::kTemplate).hash;
  const std::string ours = dir / "ours.db", theirs = dir / "theirs.db";
  const char* const a = "tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4";
  const char* const b = "tpb1024.vpt8.vec0.pc4.lay0.agg0.u2.pad1.bps2";
  histtune::db::Database(ours).set_winner(gpu, kProblem, a, 0.02, hash, histtune::version());
  histtune::db::Database(theirs).set_winner(gpu, kProblem, b, 0.01, hash, histtune::version());
  const auto r = run_cli("merge " + theirs + " --db " + ours);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("re-timed side by side on GPU 0"), std::string::npos) << r.out;
  const std::string kept = histtune::db::Database(ours).winner(gpu.uuid, kProblem)->config_label;
  EXPECT_NE(r.out.find("kept " + kept), std::string::npos) << r.out;
}

}  // namespace
