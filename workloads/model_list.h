// A pod's allowed GPU models, shared by every pod with the same list (a generator's shape, a
// trace's repeated value): 8 bytes in a PodSpec instead of a 24-byte vector; empty = any model.
// A list read from a trace keeps the trace's spelling too (`written`), for FGD's target workload.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workloads/shared_value.h"

namespace slicelab {

class ModelList {
 public:
  ModelList() = default;
  // Implicit, so that readers and tests assign lists as they did to a std::vector field.
  // `written`: the list as the source spelled it, when it came as one text (an openb gpu_spec
  // "V100M16|V100M32|V100M32": trace names, repeats kept). The FGD paper's simulator keys its
  // target workload on that text (docs/fragmentation.md), so "A|B|B" and "A|B" stay two shapes
  // there although they allow the same models. Not part of equality: placement sees the models.
  ModelList(std::vector<std::string> models,  // NOLINT(google-explicit-constructor)
            std::string written = {})
      : models_(models.empty()
                    ? SharedValue<Models>()
                    : SharedValue<Models>(Models{std::move(models), std::move(written)})) {}
  ModelList(std::initializer_list<std::string> models)
      : ModelList(std::vector<std::string>(models)) {}

  bool empty() const { return !models_; }
  size_t size() const { return models_ ? models_->names.size() : 0; }
  const std::string* begin() const { return models_ ? models_->names.data() : nullptr; }
  const std::string* end() const {
    return models_ ? models_->names.data() + models_->names.size() : nullptr;
  }
  const std::string& operator[](size_t i) const { return models_->names[i]; }
  // The source's spelling (see the constructor); empty when the models came as a list, or none.
  std::string_view written() const {
    return models_ ? std::string_view(models_->written) : std::string_view();
  }
  std::vector<std::string> to_vector() const { return {begin(), end()}; }
  void clear() { models_.reset(); }

  friend bool operator==(const ModelList& a, const ModelList& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const ModelList& a, const std::vector<std::string>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend std::ostream& operator<<(std::ostream& os, const ModelList& l) {
    os << '[';
    for (size_t i = 0; i < l.size(); ++i) os << (i ? ", " : "") << l[i];
    return os << ']';
  }

 private:
  struct Models {
    std::vector<std::string> names;
    std::string written;
  };
  SharedValue<Models> models_;  // null = empty
};

}  // namespace slicelab
