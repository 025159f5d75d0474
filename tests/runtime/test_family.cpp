// The family registry (family.hpp) and the dispatcher's one memo key (shape_key): every family is
// reachable by id, name and spec prefix, round-trips its labels, and no two calls that share a
// key need different kernels.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "fake_device.hpp"
#include "histtune/db/database.hpp"
#include "histtune/families.hpp"
#include "histtune/jit.hpp"

namespace histtune {
namespace {

using test::h100_like;

TEST(FamilyRegistry, EveryFamilyIsReachableByIdNameAndPrefix) {
  std::set<std::string> names, prefixes;
  int i = 0;
  for (const KernelFamily* f : families()) {
    EXPECT_EQ(static_cast<int>(f->id()), i++) << "families() is in Family order";
    EXPECT_EQ(&family(f->id()), f);
    EXPECT_EQ(parse_family(f->name()), f->id());
    EXPECT_TRUE(names.insert(f->name()).second) << f->name();
    EXPECT_TRUE(prefixes.insert(f->spec_prefix()).second) << f->name() << ": prefix taken";
    EXPECT_FALSE(f->params().empty());
    EXPECT_NE(family_names().find(f->name()), std::string::npos);
  }
  EXPECT_FALSE(parse_family("hist2d"));
}

// A problem of f that its built-in default runs.
Problem typical(const KernelFamily& f) {
  if (f.id() == Family::batched) return batched_problem(SampleType::u8, Binning::direct, 256, 64, 1 << 16);
  if (f.id() == Family::segmented)
    return segmented_problem(SampleType::u8, Binning::direct, 256, 64, 1 << 22);
  if (f.has_weights())
    return weighted_problem(SampleType::u8, WeightType::f32, Binning::direct, 256, 1 << 24,
                            f.id() == Family::weighted_det);
  if (f.has_dims()) {
    const std::uint32_t bins[] = {64, 64};
    return joint_problem(SampleType::f32, Binning::even, 2, bins, 1 << 24, 0, 1);
  }
  return f.has_channels() ? multichannel_problem(SampleType::u8, 4, 3, 1 << 20)
                          : flat_problem(SampleType::u8, Binning::direct, 256, 1 << 24);
}

TEST(FamilyRegistry, LabelsRoundTripAndStayInTheirFamily) {
  const DeviceInfo d = h100_like();
  for (const KernelFamily* f : families()) {
    const Problem p = typical(*f);
    EXPECT_EQ(&family_of(p), f);
    const ParamValues fallback = f->fallback(p, d);
    EXPECT_EQ(f->check(fallback, p, d).message(), "") << f->label(fallback);
    const std::string label = f->label(fallback);
    ASSERT_TRUE(f->parse(label)) << label;
    EXPECT_EQ(*f->parse(label), fallback);
    for (const KernelFamily* other : families()) {
      if (other == f) continue;
      EXPECT_FALSE(other->parse(label)) << other->name() << " parsed " << label;
    }
    EXPECT_NE(f->to_json(fallback).find(f->params().front().name), std::string::npos);
  }
}

TEST(FamilyRegistry, EachFamilyDeclaresItsOwnPlanProblemsAndBenchRows) {
  std::set<std::string> ids;
  for (const KernelFamily* f : families()) {
    EXPECT_FALSE(f->plan_problems().empty()) << f->name();
    for (const Problem& p : f->plan_problems()) {
      EXPECT_EQ(&family_of(p), f) << p.describe();
      EXPECT_EQ(validate(p), "") << p.describe();
    }
    for (const BenchRow& r : f->bench_rows()) {
      EXPECT_EQ(&family_of(r.problem), f) << r.id;
      EXPECT_EQ(validate(r.problem), "") << r.id;
      EXPECT_TRUE(ids.insert(r.id).second) << "two rows named " << r.id;
      EXPECT_FALSE(r.target.empty()) << r.id;
    }
    // The families of rows have no CUB peer (CUB has no histogram per row or segment), nor the
    // weighted ones (CUB has no weights), nor the joint one (CUB has no joint histogram).
    if (!f->has_rows() && !f->has_weights() && !f->has_dims()) {
      EXPECT_NE(f->baseline(), Baseline::none) << f->name() << ": both families have a CUB peer";
    }
  }
}

// Variants of one shape in what is not its key (bounds, levels, pitch) and in what is (bounds
// that need the 64-bit even arithmetic, pitched or packed rows).
std::vector<Problem> variants(const KernelFamily& f) {
  static const float levels[2] = {0, 1};
  std::vector<Problem> out;
  if (f.has_rows()) {
    // Strides and offsets are call arguments; the bounds as for the 1D family.
    static const std::int64_t offsets[2] = {0, 1 << 20};
    for (double upper : {256.0, 65536.0}) {
      Problem p = f.id() == Family::batched
                      ? batched_problem(SampleType::u16, Binning::even, 4, 16, 1 << 16)
                      : segmented_problem(SampleType::u16, Binning::even, 4, 16, 1 << 20);
      p.upper = upper;
      out.push_back(p);
      if (f.id() == Family::batched) p.row_stride = (1 << 16) + 3;
      p.d_offsets = offsets;
      out.push_back(p);
    }
    return out;
  }
  if (f.has_weights()) {
    // The weights and their bound are call arguments; the bounds as for the 1D family.
    static const float weights[1] = {1};
    for (double upper : {256.0, 65536.0}) {
      Problem p = weighted_problem(SampleType::u16, WeightType::f32, Binning::even, 4, 1 << 20,
                                   f.id() == Family::weighted_det, 0, upper);
      out.push_back(p);
      p.d_weights = weights;
      p.weight_bound = 2;
      out.push_back(p);
    }
    return out;
  }
  if (f.has_dims()) {
    // Each dimension's bins, bounds, edges and arrays are call arguments, the bins' product and
    // the bounds that need the 64-bit even arithmetic are not.
    static const std::uint16_t column[1] = {0};
    for (double upper : {256.0, 65536.0}) {
      const std::uint32_t bins[] = {4, 16};
      Problem p = joint_problem(SampleType::u16, Binning::even, 2, bins, 1 << 20, 0, upper);
      out.push_back(p);
      p.joint.bins[0] = 16;
      p.joint.bins[1] = 4;
      p.joint.lower[1] = 7;
      out.push_back(p);
      p.joint.d_columns[0] = p.joint.d_columns[1] = column;
      out.push_back(p);
    }
    return out;
  }
  if (!f.has_channels()) {
    for (double upper : {256.0, 512.0, 65535.0, 65536.0}) {
      out.push_back(flat_problem(SampleType::u16, Binning::even, 4, 1 << 20, 0, upper));
      out.push_back(flat_problem(SampleType::u16, Binning::even, 4, 1 << 20, 7, upper));
    }
    Problem r = flat_problem(SampleType::f32, Binning::range, 1, 1 << 20);
    out.push_back(r);
    r.d_levels = levels;
    out.push_back(r);
    return out;
  }
  for (double upper : {256.0, 65535.0}) {
    Problem p = multichannel_problem(SampleType::u16, 4, 3, 1 << 20, 4, Binning::even);
    p.upper = upper;
    out.push_back(p);
    p.row_pixels = 1024;  // packed image rows: the same kernel
    out.push_back(p);
    p.row_pitch_bytes = 1024 * 4 * 2 + 64;  // pitched: the other variant
    out.push_back(p);
    p.row_pitch_bytes += 128;  // another pitch: an argument
    out.push_back(p);
  }
  return out;
}

TEST(ShapeKey, CallsWithOneKeyNeedOneKernel) {
  const DeviceInfo d = h100_like();
  for (const KernelFamily* f : families()) {
    const std::vector<Problem> ps = variants(*f);
    for (const Problem& p : ps) ASSERT_EQ(validate(p), "") << p.describe();
    std::size_t pairs = 0;
    for (const Problem& p : ps) {
      const ParamValues c = f->fallback(p, d);
      for (const Problem& q : ps) {
        if (!f->check(c, q, d).holds() || f->check(c, p, d).message() != "") continue;
        const bool same_kernel =
            cache_key(f->request(c, p, 90)) == cache_key(f->request(c, q, 90));
        if (shape_key(p) == shape_key(q)) {
          EXPECT_TRUE(same_kernel) << f->name() << ": " << p.describe() << " and " << q.describe()
                                   << " share a key but not a kernel";
          ++pairs;
        }
      }
    }
    EXPECT_GT(pairs, ps.size()) << f->name() << ": some variants must share a key";
  }
}

TEST(ShapeKey, TheBoundsThatChangeTheArithmeticChangeTheKey) {
  const Problem narrow = flat_problem(SampleType::u16, Binning::even, 4, 1 << 20, 0, 256);
  const Problem wide = flat_problem(SampleType::u16, Binning::even, 4, 1 << 20, 0, 65535);
  ASSERT_NE(even_narrow(narrow), even_narrow(wide));
  EXPECT_NE(shape_key(narrow), shape_key(wide));
  Problem packed = multichannel_problem(SampleType::u8, 4, 4, 1 << 12);
  packed.row_pixels = 64;
  Problem pitched = packed;
  pitched.row_pitch_bytes = 64 * 4 + 32;
  EXPECT_NE(shape_key(packed), shape_key(pitched));
}

TEST(ShapeKey, AJointProblemsKeyHoldsItsDimensionsAndTheirProduct) {
  const std::uint32_t square[] = {64, 64}, wide[] = {16, 256}, cube[] = {16, 16, 16};
  const Problem a = joint_problem(SampleType::f32, Binning::even, 2, square, 1 << 20, 0, 1);
  const Problem b = joint_problem(SampleType::f32, Binning::even, 2, wide, 1 << 20, 0, 1);
  const Problem c = joint_problem(SampleType::f32, Binning::even, 3, cube, 1 << 20, 0, 1);
  EXPECT_EQ(shape_key(a), shape_key(b)) << "the split of the bins is a call argument";
  EXPECT_NE(shape_key(a), shape_key(c));
  EXPECT_EQ(a.key().channels, 2u);
  EXPECT_EQ(a.key().num_bins, 4096u);
  EXPECT_EQ(c.key().channels, 3u);
}

}  // namespace
}  // namespace histtune
