// A list of pointers to T whose elements read as references (rows[i].name): the timing
// tables keep their entries at stable addresses, which other entries and caches point to.
#pragma once
#include <stddef.h>

#include <vector>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

template <class T>
class ptr_list {
 public:
  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  T& operator[](size_t i) const { return *v_[i]; }
  T& back() const { return *v_.back(); }
  void push_back(T* p) { v_.push_back(p); }
  // The pointers themselves, for qsort.
  T** data() { return v_.data(); }

 private:
  std::vector<T*> v_;
};

}  // namespace detail
PROBE_END_NAMESPACE
