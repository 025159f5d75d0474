// The shapes a weighted problem takes (WeightedForm: flat, dense rows, CSR segments, pixels of
// channels): the form from the Problem's fields, its key columns and their inverse, its checks.
#include <cmath>

#include "histtune/weighted.hpp"

namespace histtune::weighted {

WeightedForm form(const Problem& p) {
  if (p.segments) return WeightedForm::segments;
  if (p.channels != 1 || p.active_channels != 1) return WeightedForm::channels;
  if (p.rows != 1) return WeightedForm::rows;
  return WeightedForm::flat;
}

std::uint64_t histograms(const Problem& p) {
  const WeightedForm f = form(p);
  return f == WeightedForm::rows || f == WeightedForm::segments ? p.rows : 1;
}

KeyColumns key_columns(const Problem& p) {
  const WeightedForm f = form(p);
  KeyColumns k;
  k.channels = static_cast<std::uint32_t>(p.weight_type) + 8 * static_cast<std::uint32_t>(f);
  if (f == WeightedForm::channels) {
    k.channels += 32 * p.channels;  // validate(): at most 4096
    k.active_channels = p.active_channels;
  } else if (f != WeightedForm::flat) {
    k.channels += static_cast<std::uint32_t>(32 * p.rows);  // validate(): kMaxWeightedRows
  }
  return k;
}

void set_key_columns(Problem& p, std::uint32_t channels, std::uint32_t active_channels) {
  p.weight_type = static_cast<WeightType>(channels % 8);
  const auto f = static_cast<WeightedForm>(channels / 8 % 4);
  p.segments = f == WeightedForm::segments;
  if (f == WeightedForm::rows || f == WeightedForm::segments) p.rows = channels / 32;
  if (f == WeightedForm::channels) {
    p.channels = channels / 32;
    p.active_channels = active_channels;
  }
}

std::string shape_text(const Problem& p) {
  switch (form(p)) {
    case WeightedForm::rows:
      return " rows=" + std::to_string(p.rows) +
             (p.row_stride != 0 ? " row_stride=" + std::to_string(p.row_stride) : "");
    case WeightedForm::segments: return " segments=" + std::to_string(p.rows);
    case WeightedForm::channels:
      return " channels=" + std::to_string(p.active_channels) + "/" + std::to_string(p.channels);
    case WeightedForm::flat: break;
  }
  return {};
}

namespace {

std::string validate_form(const Problem& p) {
  const std::string fam = to_string(p.family);
  if (p.row_pixels != 0 || p.row_pitch_bytes != 0)
    return fam + " problems take no row pitch (pixels of channels are packed)";
  switch (form(p)) {
    case WeightedForm::flat:
      if (p.row_stride != 0 && p.row_stride < p.n)
        return "row_stride = " + std::to_string(p.row_stride) + " is less than n = " +
               std::to_string(p.n);
      return {};
    case WeightedForm::rows:
    case WeightedForm::segments:
      if (p.rows > kMaxWeightedRows)
        return "rows = " + std::to_string(p.rows) + " exceeds " +
               std::to_string(kMaxWeightedRows) +
               ", the most weighted rows (or segments) a call takes";
      return validate_rows(p);
    case WeightedForm::channels:
      if (p.channels < 1 || p.channels > 4096) return "channels must be 1 .. 4096";
      if (p.active_channels < 1 || p.active_channels > p.channels)
        return "active_channels must be 1 .. channels";
      if (p.rows != 1 || p.row_stride != 0)
        return fam + " problems of channels have one row (no row_stride)";
      if (static_cast<double>(p.num_bins) * p.active_channels > 4294967295.0)
        return "num_bins x active_channels bins exceed 2^32";
      if (p.n > 0 && p.channels > (std::uint64_t{1} << 62) / p.n)
        return "n x channels samples overflow a 64-bit offset";
      return {};
  }
  return {};
}

}  // namespace

std::string validate(const Problem& p) {
  if (p.weight_type == WeightType::none || static_cast<unsigned>(p.weight_type) > 4)
    return std::string(to_string(p.family)) + " problems need a weight type (f32, f64, i32, i64)";
  if (p.family == Family::weighted_det && p.weight_type != WeightType::f32 &&
      p.weight_type != WeightType::f64)
    return std::string("the deterministic mode takes f32 or f64 weights; ") +
           to_string(p.weight_type) + " weights sum exactly (and deterministically) in the fast one";
  if (std::string why = validate_form(p); !why.empty()) return why;
  if (p.family == Family::weighted_det && !(p.weight_bound >= 0 && std::isfinite(p.weight_bound)))
    return "the deterministic mode's weight bound must be finite and >= 0 (0: measured), got " +
           std::to_string(p.weight_bound);
  return {};
}

}  // namespace histtune::weighted
