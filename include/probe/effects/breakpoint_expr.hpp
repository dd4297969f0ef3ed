// Expressions at the breakpoint prompt: `name`, `name[i]`, `name[i, j]`, slices
// `name[a:b]` and `name[a:b:step]` (Python's rules: negative indices count from the end,
// slice bounds are clipped), chained `name[i][a:b]`, and `.shape` / `.dtype` at the end.
// Indexing makes a view of the variable's memory; nothing is copied until it is printed.
// Internal header.
#pragma once
#include <stdlib.h>

#include <string>

#include "breakpoint_frames.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct expr_value {
  bool is_text = false;  // .shape and .dtype give text; everything else a tensor view
  std::string text;
  tensor_view view;      // may be on a device
  const frame_var* var = nullptr;  // the variable it reads
};

namespace bp_expr {

inline bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

inline std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && is_space(s[a])) ++a;
  while (b > a && is_space(s[b - 1])) --b;
  return s.substr(a, b - a);
}

inline bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = strlen(suffix);
  return s.size() > n && s.compare(s.size() - n, n, suffix) == 0;
}

// An optional integer: "" gives *present = false.
inline bool parse_int(const std::string& text, int64_t* out, bool* present) {
  const std::string t = trim(text);
  *present = !t.empty();
  if (t.empty()) return true;
  size_t i = 0;
  if (t[0] == '-' || t[0] == '+') i = 1;
  if (i == t.size()) return false;
  for (size_t k = i; k < t.size(); ++k)
    if (t[k] < '0' || t[k] > '9') return false;
  if (t.size() - i > 18) return false;
  *out = strtoll(t.c_str(), nullptr, 10);
  return true;
}

struct index_item {
  bool is_slice = false;
  int64_t index = 0;
  bool has_start = false, has_stop = false, has_step = false;
  int64_t start = 0, stop = 0, step = 1;
};

inline bool parse_item(const std::string& raw, index_item* it, std::string* err) {
  const std::string t = trim(raw);
  if (t.empty()) {
    *err = "empty index";
    return false;
  }
  std::string parts[3];
  size_t nparts = 0, from = 0;
  for (size_t i = 0; i <= t.size() && nparts <= 3; ++i)
    if (i == t.size() || t[i] == ':') {
      if (nparts < 3) parts[nparts] = t.substr(from, i - from);
      ++nparts;
      from = i + 1;
    }
  bool ok = true, present = false;
  if (nparts == 1) {
    ok = parse_int(parts[0], &it->index, &present);
  } else if (nparts <= 3) {
    it->is_slice = true;
    ok = parse_int(parts[0], &it->start, &it->has_start) && parse_int(parts[1], &it->stop, &it->has_stop);
    if (ok && nparts == 3) ok = parse_int(parts[2], &it->step, &it->has_step);
    if (!it->has_step) it->step = 1;
  } else {
    ok = false;
  }
  if (!ok) {
    *err = "bad index '" + t + "' (integers and slices a:b:step only)";
    return false;
  }
  if (it->is_slice && it->step == 0) {
    *err = "slice step cannot be zero";
    return false;
  }
  return true;
}

// Applies one bracket's items to v's leading dimensions, as numpy does; *offset (elements
// from v's first element) grows by where the result starts. v.data moves with it.
inline bool apply_index(tensor_view& v, const index_item* items, int nitems, std::string* err,
                        int64_t* moved = nullptr) {
  if (nitems > v.ndim) {
    *err = "too many indices: the tensor is " + std::to_string(v.ndim) + "-dimensional, but " +
           std::to_string(nitems) + " were indexed";
    return false;
  }
  tensor_view r = v;
  int out = 0;
  int64_t offset = 0;  // in elements
  for (int d = 0; d < v.ndim; ++d) {
    const int64_t size = v.shape[d], stride = v.strides[d];
    if (d >= nitems) {
      r.shape[out] = size;
      r.strides[out++] = stride;
      continue;
    }
    const index_item& it = items[d];
    if (!it.is_slice) {
      int64_t i = it.index < 0 ? it.index + size : it.index;
      if (i < 0 || i >= size) {
        *err = "index " + std::to_string(it.index) + " is out of bounds for axis " + std::to_string(d) +
               " with size " + std::to_string(size);
        return false;
      }
      offset += i * stride;
      continue;
    }
    // Python's slice.indices(size).
    const int64_t step = it.step;
    int64_t start, stop;
    if (step > 0) {
      start = it.has_start ? it.start : 0;
      stop = it.has_stop ? it.stop : size;
      if (start < 0) start = start + size < 0 ? 0 : start + size;
      if (start > size) start = size;
      if (stop < 0) stop = stop + size < 0 ? 0 : stop + size;
      if (stop > size) stop = size;
    } else {
      start = it.has_start ? it.start : size - 1;
      stop = it.has_stop ? it.stop : -1 - size;  // "before 0" once adjusted below
      if (start < 0) start = start + size < 0 ? -1 : start + size;
      if (start >= size) start = size - 1;
      if (stop < 0) stop = stop + size < 0 ? -1 : stop + size;
      if (stop >= size) stop = size - 1;
    }
    int64_t len = 0;
    if (step > 0 && stop > start) len = (stop - start - 1) / step + 1;
    if (step < 0 && stop < start) len = (start - stop - 1) / (-step) + 1;
    if (len > 0) offset += start * stride;
    r.shape[out] = len;
    // One element or none: the stride is never used to step, and stride * step could overflow.
    r.strides[out++] = len > 1 ? stride * step : stride;
  }
  r.ndim = static_cast<int8_t>(out);
  for (int d = out; d < max_dims; ++d) r.shape[d] = r.strides[d] = 0;
  if (r.data) r.data = static_cast<const char*>(v.data) + offset * static_cast<int64_t>(v.itemsize());
  if (moved) *moved += offset;
  v = r;
  return true;
}

// The items between one pair of brackets ("126, 2, :"), applied to v.
inline bool apply_bracket(tensor_view& v, const std::string& inside, std::string* err, int64_t* moved = nullptr) {
  index_item items[max_dims + 1];
  int nitems = 0;
  size_t from = 0;
  for (size_t i = 0; i <= inside.size(); ++i)
    if (i == inside.size() || inside[i] == ',') {
      index_item it;
      if (!parse_item(inside.substr(from, i - from), &it, err)) return false;
      if (nitems <= max_dims) items[nitems] = it;
      ++nitems;
      from = i + 1;
    }
  if (nitems > max_dims) nitems = max_dims + 1;  // reported as too many indices
  return apply_index(v, items, nitems, err, moved);
}

// A whole index expression: one or more brackets, "[126, 2, :]" or "[1][2:]". The view's
// memory is not read: *moved says where the result starts, in elements of v.
inline bool apply_index_text(tensor_view& v, const std::string& text, std::string* err, int64_t* moved) {
  const std::string t = trim(text);
  size_t pos = 0;
  if (t.empty() || t[0] != '[') {
    *err = "expected an index such as '[0, :, 1:3]', not '" + t + "'";
    return false;
  }
  while (pos < t.size()) {
    while (pos < t.size() && is_space(t[pos])) ++pos;
    if (pos >= t.size()) break;
    if (t[pos] != '[') {
      *err = "unexpected '" + t.substr(pos) + "' (an index is [i, j, a:b:step], brackets may repeat)";
      return false;
    }
    const size_t close = t.find(']', pos);
    if (close == std::string::npos) {
      *err = "missing ']' in '" + t + "'";
      return false;
    }
    if (!apply_bracket(v, t.substr(pos + 1, close - pos - 1), err, moved)) return false;
    pos = close + 1;
  }
  return true;
}

inline std::string shape_tuple(const tensor_view& v) {
  std::string s = "(";
  for (int d = 0; d < v.ndim; ++d) {
    if (d) s += ", ";
    s += std::to_string(v.shape[d]);
  }
  if (v.ndim == 1) s += ',';
  return s + ")";
}

}  // namespace bp_expr

// Evaluates `text` in frame f. False with a one-line *err.
PROBE_API bool eval_expr(const frame& f, const std::string& text, expr_value* out, std::string* err);

}  // namespace detail
PROBE_END_NAMESPACE
