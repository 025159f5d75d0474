// What the multi-channel family is tuned and benchmarked on (workload.hpp): its problems of the
// default plan and its rows of the bench matrix.
#include "histtune/multichannel.hpp"

namespace histtune::multichannel {

std::vector<Problem> plan_problems() {
  // RGBA 8K frames with the three colour channels counted, [1048576, 512] u8 columns, 12-bit
  // RGBA 4K frames (searched with the 1D problems' strategy and budget).
  return {multichannel_problem(SampleType::u8, 4, 3, 7680ull * 4320, 256),
          multichannel_problem(SampleType::u8, 512, 512, 1048576, 256),
          multichannel_problem(SampleType::u16, 4, 4, 3840ull * 2160, 4096)};
}

std::vector<BenchRow> bench_rows() {
  // 7680 x 4320 RGBA pixels, histograms of R, G and B.
  BenchRow rgba;
  rgba.id = "rgba-u8-7680x4320-3of4";
  rgba.problem = multichannel_problem(SampleType::u8, 4, 3, 7680ull * 4320, 256);
  rgba.target = ">= 85% of floor";
  rgba.min_floor_pct = 85;
  BenchRow columns;
  columns.id = "multichannel-1048576x512-u8-256";
  columns.problem = multichannel_problem(SampleType::u8, 512, 512, 1048576, 256);
  columns.target = "<= 0.190 ms";
  columns.max_us = 190;
  // Many bins over few channels (issue 27): the channels' histograms do not fit one block
  // together, so they run in groups of one or two channels. CUB takes at most 4 channels.
  BenchRow wide;
  wide.id = "multichannel-u16-1048576x17-4096";
  wide.problem = multichannel_problem(SampleType::u16, 17, 17, 1048576, 4096);
  wide.target = "runs, exact";
  BenchRow deep;
  deep.id = "multichannel-u16-4194304x4-16384";
  deep.problem = multichannel_problem(SampleType::u16, 4, 4, 4194304, 16384);
  deep.target = ">= 1.5x faster than CUB";
  deep.min_cub_speedup = 1.5;
  return {rgba, columns, wide, deep};
}

}  // namespace histtune::multichannel
