// Every family's typed traits at once (Hist1DFamily, MultiChannelFamily, BatchedFamily,
// SegmentedFamily, WeightedFamily, DeterministicWeightedFamily, JointFamily), for code that is written per
// family; code over any family uses family.hpp's registry instead.
#pragma once

#include "histtune/batched.hpp"
#include "histtune/family.hpp"
#include "histtune/family_model.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/joint.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/weighted.hpp"
