// The registry: one line per family. Adding a family: its template in templates/, its header
// and sources in runtime/ (value struct, parameter table, restrictions, launch, plan problems and
// bench rows, traits with its name), its Family value in problem.hpp, and its line below;
// docs/families.md lists the files and what else a family may need.
#include "histtune/batched.hpp"
#include "histtune/family_model.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/joint.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/weighted.hpp"

namespace histtune {

const std::vector<const KernelFamily*>& families() {
  static const FamilyModel<Hist1DFamily> hist1d;
  static const FamilyModel<MultiChannelFamily> multichannel;
  static const FamilyModel<BatchedFamily> batched;
  static const FamilyModel<SegmentedFamily> segmented;
  static const FamilyModel<WeightedFamily> weighted;
  static const FamilyModel<DeterministicWeightedFamily> weighted_det;
  static const FamilyModel<JointFamily> joint;
  static const std::vector<const KernelFamily*> all = {&hist1d,   &multichannel, &batched,
                                                       &segmented, &weighted,    &weighted_det,
                                                       &joint};
  return all;
}

const KernelFamily& family(Family id) {
  for (const KernelFamily* f : families())
    if (f->id() == id) return *f;
  throw std::invalid_argument("histtune: no kernel family with id " +
                              std::to_string(static_cast<int>(id)));
}

const KernelFamily& family_of(const Problem& p) { return family(p.family); }

std::string family_names() {
  std::string s;
  for (const KernelFamily* f : families()) s += (s.empty() ? "" : ", ") + std::string(f->name());
  return s;
}

std::string KernelFamily::template_hash() const { return templates::get(template_name()).hash; }

std::vector<CompileRequest> KernelFamily::programs(const ParamValues& v, const Problem& p,
                                                   int arch) const {
  std::vector<CompileRequest> out = also_compiled(v, p, arch);
  out.insert(out.begin(), request(v, p, arch));
  return out;
}

}  // namespace histtune
