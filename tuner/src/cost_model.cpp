#include "histtune/tuner/cost_model.hpp"

#include <cmath>
#include <utility>

namespace histtune::tuner {
namespace {

// The ridge on every value's term: one-hot columns and the mean are collinear, and a value timed
// twice should not swing far on two noisy times. Small against a column's count (>= kMinSeen).
constexpr double kRidge = 1e-2;

// Solves A x = b for symmetric positive definite A (n x n, row-major) by Cholesky, in place;
// empty where A is not (rounding: the model then predicts nothing, so it screens nothing).
std::vector<double> solve_spd(std::vector<double> a, std::vector<double> b, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0)) return {};
    const double l = std::sqrt(d);
    a[j * n + j] = l;
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / l;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {  // L y = b
    for (std::size_t k = 0; k < i; ++k) b[i] -= a[i * n + k] * b[k];
    b[i] /= a[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {  // L^T x = y
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= a[k * n + i] * b[k];
    b[i] /= a[i * n + i];
  }
  return b;
}

}  // namespace

CostModel::CostModel(std::vector<int> sizes) : sizes_(std::move(sizes)) {
  for (int s : sizes_) {
    offset_.push_back(columns_);
    columns_ += static_cast<std::size_t>(s > 0 ? s : 0);
  }
  ++columns_;  // the mean
  timed_.assign(columns_, 0);
}

void CostModel::add(const Point& p, double cost) {
  if (p.size() != sizes_.size() || !(cost > 0) || !std::isfinite(cost)) return;
  for (std::size_t k = 0; k < p.size(); ++k)
    if (p[k] < 0 || p[k] >= sizes_[k]) return;
  for (std::size_t k = 0; k < p.size(); ++k) ++timed_[column(k, p[k])];
  points_.push_back(p);
  log_costs_.push_back(std::log(cost));
  fitted_ = false;
}

std::optional<double> CostModel::predict(const Point& p) const {
  if (points_.size() < kMinPoints || p.size() != sizes_.size()) return std::nullopt;
  for (std::size_t k = 0; k < p.size(); ++k)
    if (p[k] < 0 || p[k] >= sizes_[k] || timed_[column(k, p[k])] < kMinSeen) return std::nullopt;
  if (!fitted_) fit();
  if (coef_.empty()) return std::nullopt;
  double y = coef_[columns_ - 1];
  for (std::size_t k = 0; k < p.size(); ++k) y += coef_[column(k, p[k])];
  return std::exp(y);
}

// Ridge least squares on the one-hot columns and the mean: (X^T X + ridge) c = X^T y.
void CostModel::fit() const {
  const std::size_t n = columns_;
  std::vector<double> a(n * n, 0.0), b(n, 0.0);
  std::vector<std::size_t> cols(sizes_.size() + 1);
  for (std::size_t i = 0; i < points_.size(); ++i) {
    for (std::size_t k = 0; k < sizes_.size(); ++k) cols[k] = column(k, points_[i][k]);
    cols.back() = n - 1;
    for (std::size_t r : cols) {
      b[r] += log_costs_[i];
      for (std::size_t c : cols) a[r * n + c] += 1.0;
    }
  }
  for (std::size_t j = 0; j + 1 < n; ++j) a[j * n + j] += kRidge;  // the mean is not shrunk
  coef_ = solve_spd(std::move(a), std::move(b), n);
  fitted_ = true;
}

}  // namespace histtune::tuner
