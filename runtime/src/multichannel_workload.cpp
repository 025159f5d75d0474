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
  columns.target = "<= 0.20 ms";
  columns.max_us = 200;
  return {rgba, columns};
}

}  // namespace histtune::multichannel
