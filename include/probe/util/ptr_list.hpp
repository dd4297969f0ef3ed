// A growable list of pointers to T, all kept in one std::vector<char*> instantiation (the
// flags already use it), so each new list type adds no compile time. Standalone helper.
#pragma once
#include <stddef.h>

#include "config.hpp"
#include <vector>

PROBE_BEGIN_NAMESPACE
namespace detail {

template <class T>
class ptr_list {
 public:
  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  T& operator[](size_t i) const { return *reinterpret_cast<T*>(v_[i]); }
  T& back() const { return (*this)[v_.size() - 1]; }
  void push_back(T* p) { v_.push_back(reinterpret_cast<char*>(p)); }
  // The pointers themselves, for qsort.
  char** data() { return v_.data(); }

 private:
  std::vector<char*> v_;
};

}  // namespace detail
PROBE_END_NAMESPACE
