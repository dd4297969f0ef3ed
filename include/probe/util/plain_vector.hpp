// A growable contiguous array for probe's own records (op tensors, flag tokens, regex
// programs, graphs). Not std::vector on purpose: in header-only mode every TU that includes
// probe parses its implementation, and <vector> plus one completed std::vector<T> per element
// type cost more compile time than the rest of the flags and op-record code together
// (benchmarks/README.md, "compile cost"). This one is a few declarations per element type.
//
// Semantics are std::vector's for what it offers (iterators are pointers; growth doubles;
// elements move on reallocation, so element types must be nothrow-movable, as all of probe's
// are). Allocation failure throws std::bad_alloc like std::vector; probe's entry points
// already catch that. Standalone helper.
#pragma once
#include <stddef.h>

#include <initializer_list>
#include <new>

#include "config.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

template <class T>
class plain_vector {
 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  constexpr plain_vector() noexcept {}
  explicit plain_vector(size_t n) { resize(n); }
  plain_vector(size_t n, const T& v) { resize(n, v); }
  plain_vector(std::initializer_list<T> il) { append(il.begin(), il.end()); }
  plain_vector(const plain_vector& o) { append(o.begin(), o.end()); }
  plain_vector(plain_vector&& o) noexcept : p_(o.p_), n_(o.n_), cap_(o.cap_) { o.p_ = nullptr, o.n_ = o.cap_ = 0; }
  plain_vector& operator=(const plain_vector& o) {
    if (this != &o) {
      clear();
      append(o.begin(), o.end());
    }
    return *this;
  }
  plain_vector& operator=(plain_vector&& o) noexcept {
    swap(o);
    return *this;
  }
  ~plain_vector() {
    clear();
    ::operator delete(p_);
  }

  size_t size() const noexcept { return n_; }
  size_t capacity() const noexcept { return cap_; }
  bool empty() const noexcept { return n_ == 0; }
  T* data() noexcept { return p_; }
  const T* data() const noexcept { return p_; }
  T* begin() noexcept { return p_; }
  T* end() noexcept { return p_ + n_; }
  const T* begin() const noexcept { return p_; }
  const T* end() const noexcept { return p_ + n_; }
  T& operator[](size_t i) noexcept { return p_[i]; }
  const T& operator[](size_t i) const noexcept { return p_[i]; }
  T& front() noexcept { return p_[0]; }
  const T& front() const noexcept { return p_[0]; }
  T& back() noexcept { return p_[n_ - 1]; }
  const T& back() const noexcept { return p_[n_ - 1]; }

  void swap(plain_vector& o) noexcept {
    T* p = p_;
    size_t n = n_, c = cap_;
    p_ = o.p_, n_ = o.n_, cap_ = o.cap_;
    o.p_ = p, o.n_ = n, o.cap_ = c;
  }
  void reserve(size_t c) {
    if (c <= cap_) return;
    T* q = static_cast<T*>(::operator new(c * sizeof(T)));
    for (size_t i = 0; i < n_; ++i) {
      ::new (static_cast<void*>(q + i)) T(static_cast<T&&>(p_[i]));
      p_[i].~T();
    }
    ::operator delete(p_);
    p_ = q;
    cap_ = c;
  }
  template <class... A>
  T& emplace_back(A&&... a) {
    if (n_ == cap_) grow_for(n_ + 1);
    T* q = ::new (static_cast<void*>(p_ + n_)) T(static_cast<A&&>(a)...);
    ++n_;
    return *q;
  }
  void push_back(const T& v) {
    if (n_ == cap_ && &v >= p_ && &v < p_ + n_) {  // an element of this array: copy it first
      T copy(v);
      emplace_back(static_cast<T&&>(copy));
    } else {
      emplace_back(v);
    }
  }
  void push_back(T&& v) { emplace_back(static_cast<T&&>(v)); }
  void pop_back() noexcept { p_[--n_].~T(); }
  void clear() noexcept {
    while (n_) pop_back();
  }
  void resize(size_t n) {
    reserve(n);
    while (n_ < n) emplace_back();
    while (n_ > n) pop_back();
  }
  void resize(size_t n, const T& v) {
    reserve(n);
    while (n_ < n) emplace_back(v);
    while (n_ > n) pop_back();
  }
  void assign(size_t n, const T& v) {
    clear();
    resize(n, v);
  }
  template <class It>
  void append(It first, It last) {
    for (; first != last; ++first) emplace_back(*first);
  }
  // Removes [first, last) and keeps the order of the rest.
  T* erase(T* first, T* last) {
    if (first == last) return first;
    T* out = first;
    for (T* in = last; in != end(); ++in, ++out) *out = static_cast<T&&>(*in);
    while (end() != out) pop_back();
    return first;
  }
  T* erase(T* pos) { return erase(pos, pos + 1); }
  // Inserts v before pos and returns where it went.
  T* insert(T* pos, T v) {
    const size_t at = static_cast<size_t>(pos - p_);
    emplace_back(static_cast<T&&>(v));
    for (size_t i = n_ - 1; i > at; --i) {
      T t(static_cast<T&&>(p_[i]));
      p_[i] = static_cast<T&&>(p_[i - 1]);
      p_[i - 1] = static_cast<T&&>(t);
    }
    return p_ + at;
  }

 private:
  void grow_for(size_t need) { reserve(need > 2 * cap_ ? need : (cap_ ? 2 * cap_ : 4)); }

  T* p_ = nullptr;
  size_t n_ = 0, cap_ = 0;
};

}  // namespace detail
PROBE_END_NAMESPACE
