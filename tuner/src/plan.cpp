// The default plan of `histtune --gpu auto`.
#include "histtune/tuner/tuner.hpp"

namespace histtune::tuner {

std::vector<Problem> default_plan() {
  // Sample types x bin counts x sizes x binning: 31 1D problems (one range-binned), then 3
  // multi-channel ones.
  // Problems of one sample type and binning share their kernels (the bin count and n are launch
  // arguments), so each group after its first problem mostly reuses compiled kernels; every
  // winner starts the searches of the next ones, its own group's first (tuning_starts).
  struct Row {
    SampleType type;
    Binning binning;
    std::uint32_t bins;  // 0: n / 16
    int log2_n;
    double lower, upper;  // even binning; range binning: the levels' span
  };
  const Row rows[] = {
      // u8: the classic 256-bin image histogram over four decades of size, fewer bins.
      {SampleType::u8, Binning::direct, 256, 16, 0, 0},
      {SampleType::u8, Binning::direct, 256, 20, 0, 0},
      {SampleType::u8, Binning::direct, 256, 24, 0, 0},
      {SampleType::u8, Binning::direct, 256, 28, 0, 0},
      {SampleType::u8, Binning::direct, 64, 24, 0, 0},
      {SampleType::u8, Binning::even, 64, 24, 0, 256},
      // u16: 10-bit and 12-bit sensor data, all 65536 values, coarse even bins.
      {SampleType::u16, Binning::direct, 1024, 20, 0, 0},
      {SampleType::u16, Binning::direct, 1024, 24, 0, 0},
      {SampleType::u16, Binning::direct, 4096, 24, 0, 0},
      {SampleType::u16, Binning::direct, 65536, 24, 0, 0},
      {SampleType::u16, Binning::even, 256, 26, 0, 65536},
      // u32 keys: small to beyond-shared-memory bin counts.
      {SampleType::u32, Binning::direct, 256, 20, 0, 0},
      {SampleType::u32, Binning::direct, 256, 26, 0, 0},
      {SampleType::u32, Binning::direct, 4096, 22, 0, 0},
      {SampleType::u32, Binning::direct, 4096, 26, 0, 0},
      {SampleType::u32, Binning::direct, 65536, 26, 0, 0},
      {SampleType::u32, Binning::even, 1024, 24, 0, 1 << 20},
      // i32: signed ranges.
      {SampleType::i32, Binning::direct, 4096, 22, 0, 0},
      {SampleType::i32, Binning::even, 256, 24, -1000, 1000},
      {SampleType::i32, Binning::even, 65536, 26, -(1 << 20), 1 << 20},
      // f32: the float path over sizes and bin counts up to one bin per 16 samples.
      {SampleType::f32, Binning::even, 64, 24, 0, 1},
      {SampleType::f32, Binning::even, 256, 16, 0, 100},
      {SampleType::f32, Binning::even, 256, 20, 0, 100},
      {SampleType::f32, Binning::even, 256, 24, 0, 100},
      {SampleType::f32, Binning::even, 256, 28, 0, 100},
      {SampleType::f32, Binning::even, 1024, 26, 0, 1},
      {SampleType::f32, Binning::even, 4096, 24, -1, 1},
      {SampleType::f32, Binning::even, 65536, 24, 0, 100},
      {SampleType::f32, Binning::even, 0, 20, 0, 100},
      {SampleType::f32, Binning::even, 0, 24, 0, 100},
      // Caller-given levels: make_levels' quadratic spacing over [0, 100], staged in shared memory.
      {SampleType::f32, Binning::range, 1024, 24, 0, 100},
  };
  std::vector<Problem> plan;
  for (const Row& row : rows) {
    const std::uint64_t n = std::uint64_t{1} << row.log2_n;
    const bool bounded = row.binning != Binning::direct;
    plan.push_back(flat_problem(row.type, row.binning,
                                row.bins ? row.bins : static_cast<std::uint32_t>(n / 16), n,
                                bounded ? row.lower : 0, bounded ? row.upper : 0));
  }
  // Multi-channel rows (searched with the same strategy and budget): RGBA 8K frames with the
  // three colour channels counted, [1048576, 512] u8 columns, 12-bit RGBA 4K frames.
  struct ChannelRow {
    SampleType type;
    std::uint32_t bins;
    std::uint64_t rows;
    std::uint32_t channels, active;
  };
  const ChannelRow channel_rows[] = {
      {SampleType::u8, 256, 7680ull * 4320, 4, 3},
      {SampleType::u8, 256, 1048576, 512, 512},
      {SampleType::u16, 4096, 3840ull * 2160, 4, 4},
  };
  for (const ChannelRow& row : channel_rows) {
    plan.push_back(multichannel_problem(row.type, row.channels, row.active, row.rows, row.bins));
  }
  return plan;
}

}  // namespace histtune::tuner
