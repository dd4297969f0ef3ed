// A growable list of pointers kept in std::vector<char*>, the one vector type the flags
// already instantiate: every distinct std::vector<T> costs compile time in each TU that
// includes probe (tens of milliseconds), and this wrapper costs none. Standalone helper.
#pragma once
#include <stddef.h>

#include <vector>

#include "../core/config.hpp"

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
