// A pod's allowed GPU models, shared by every pod with the same list (a generator's shape, a
// trace's repeated value): 8 bytes in a PodSpec instead of a 24-byte vector; empty = any model.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "workloads/shared_value.h"

namespace slicelab {

class ModelList {
 public:
  ModelList() = default;
  // Implicit, so that readers and tests assign lists as they did to a std::vector field.
  ModelList(std::vector<std::string> models)  // NOLINT(google-explicit-constructor)
      : models_(models.empty() ? SharedValue<std::vector<std::string>>()
                               : SharedValue<std::vector<std::string>>(std::move(models))) {}
  ModelList(std::initializer_list<std::string> models)
      : ModelList(std::vector<std::string>(models)) {}

  bool empty() const { return !models_; }
  size_t size() const { return models_ ? models_->size() : 0; }
  const std::string* begin() const { return models_ ? models_->data() : nullptr; }
  const std::string* end() const { return models_ ? models_->data() + models_->size() : nullptr; }
  const std::string& operator[](size_t i) const { return (*models_)[i]; }
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
  SharedValue<std::vector<std::string>> models_;  // null = empty
};

}  // namespace slicelab
