// Tensors as text, the way numpy's str() prints arrays: nested brackets, columns aligned,
// rows wrapped at the line width, axes summarized with "..." past the threshold (numpy's
// _formatArray, IntegerFormat, BoolFormat, ComplexFloatingFormat; floats in
// format_float_impl.hpp).
#pragma once
#include <string.h>

#include <string>
#include <vector>

#include "format_float_impl.hpp"
#include "format_tensor.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

namespace tensor_text {

inline fvalue read_float(const unsigned char* p, dtype t) noexcept {
  switch (t) {
    case dtype::float16: case dtype::bfloat16: {
      uint16_t b;
      memcpy(&b, p, 2);
      return {t == dtype::float16 ? f16_bits_to_double(b) : bf16_bits_to_double(b), b};
    }
    case dtype::float32: case dtype::complex64: {
      float x;
      memcpy(&x, p, 4);
      return {static_cast<double>(x), 0};
    }
    default: {
      double x;
      memcpy(&x, p, 8);
      return {x, 0};
    }
  }
}

inline int64_t read_signed(const unsigned char* p, dtype t) noexcept {
  switch (t) {
    case dtype::int8: return static_cast<int8_t>(*p);
    case dtype::int16: { int16_t x; memcpy(&x, p, 2); return x; }
    case dtype::int32: { int32_t x; memcpy(&x, p, 4); return x; }
    default: { int64_t x; memcpy(&x, p, 8); return x; }
  }
}

inline uint64_t read_unsigned(const unsigned char* p, dtype t) noexcept {
  switch (t) {
    case dtype::uint8: return *p;
    case dtype::uint16: { uint16_t x; memcpy(&x, p, 2); return x; }
    case dtype::uint32: { uint32_t x; memcpy(&x, p, 4); return x; }
    default: { uint64_t x; memcpy(&x, p, 8); return x; }
  }
}

inline float_kind kind_of(dtype t) noexcept {
  switch (t) {
    case dtype::float16: return float_kind::f16;
    case dtype::bfloat16: return float_kind::bf16;
    case dtype::float32: case dtype::complex64: return float_kind::f32;
    default: return float_kind::f64;
  }
}

inline void append_int(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, static_cast<size_t>(snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v))));
}
inline void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  out.append(buf, static_cast<size_t>(snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v))));
}

// numpy's str() of a 0-d array: the scalar's own str.
inline void scalar_str(std::string& out, const unsigned char* p, dtype t) {
  if (t == dtype::boolean) {
    out += *p ? "True" : "False";
  } else if (dtype_is_signed_int(t)) {
    append_int(out, read_signed(p, t));
  } else if (dtype_is_unsigned_int(t)) {
    append_uint(out, read_unsigned(p, t));
  } else if (dtype_is_complex(t)) {
    const size_t half = dtype_size(t) / 2;
    const fvalue re = read_float(p, t), im = read_float(p + half, t);
    const float_kind k = kind_of(t);
    if (re.v == 0 && !fp_signbit(re.v)) {
      scalar_float(out, im, k, false, true);
      out += 'j';
    } else {
      out += '(';
      scalar_float(out, re, k, false, true);
      scalar_float(out, im, k, true, true);
      out += "j)";
    }
  } else {
    scalar_float(out, read_float(p, t), kind_of(t), false, false);
  }
}

// Prints the elements of one tensor to equal widths (numpy's format function for its dtype).
class element_printer {
 public:
  element_printer(dtype t, const tensor_format& f, bool zero_d)
      : type_(t),
        zero_d_(zero_d),
        re_(kind_of(t), f.float_mode, f.precision < 0 ? 8 : f.precision, f.sign_plus),
        im_(kind_of(t), f.float_mode, f.precision < 0 ? 8 : f.precision, true) {}

  // `shown`: pointers to every element that will be printed.
  template <int N = 0>
  void fill(const std::vector<const unsigned char*>& shown) {
    if (dtype_is_signed_int(type_) || dtype_is_unsigned_int(type_)) {
      std::string a, b;
      if (dtype_is_signed_int(type_)) {
        int64_t lo = 0, hi = 0;
        for (size_t i = 0; i < shown.size(); ++i) {
          const int64_t x = read_signed(shown[i], type_);
          if (i == 0 || x < lo) lo = x;
          if (i == 0 || x > hi) hi = x;
        }
        append_int(a, lo);
        append_int(b, hi);
      } else {
        uint64_t lo = 0, hi = 0;
        for (size_t i = 0; i < shown.size(); ++i) {
          const uint64_t x = read_unsigned(shown[i], type_);
          if (i == 0 || x < lo) lo = x;
          if (i == 0 || x > hi) hi = x;
        }
        append_uint(a, lo);
        append_uint(b, hi);
      }
      int_width_ = a.size() > b.size() ? a.size() : b.size();
    } else if (dtype_is_float(type_) || dtype_is_complex(type_)) {
      const size_t half = dtype_size(type_) / 2;
      std::vector<fvalue> re, im;
      re.reserve(shown.size());
      for (const unsigned char* p : shown) {
        re.push_back(read_float(p, type_));
        if (dtype_is_complex(type_)) im.push_back(read_float(p + half, type_));
      }
      re_.fill(re);
      if (dtype_is_complex(type_)) im_.fill(im);
    }
  }

  void emit(std::string& out, const unsigned char* p) const {
    if (type_ == dtype::boolean) {
      out += *p ? (zero_d_ ? "True" : " True") : "False";
    } else if (dtype_is_signed_int(type_) || dtype_is_unsigned_int(type_)) {
      std::string digits;
      if (dtype_is_signed_int(type_))
        append_int(digits, read_signed(p, type_));
      else
        append_uint(digits, read_unsigned(p, type_));
      if (digits.size() < int_width_) out.append(int_width_ - digits.size(), ' ');
      out += digits;
    } else if (dtype_is_complex(type_)) {
      re_.emit(out, read_float(p, type_));
      std::string i;
      im_.emit(i, read_float(p + dtype_size(type_) / 2, type_));
      // The 'j' goes before the imaginary part's trailing padding.
      size_t end = i.size();
      while (end > 0 && i[end - 1] == ' ') --end;
      i.insert(end, 1, 'j');
      out += i;
    } else {
      re_.emit(out, read_float(p, type_));
    }
  }

 private:
  dtype type_;
  bool zero_d_;
  size_t int_width_ = 0;
  float_formatter re_, im_;
};

// numpy's _formatArray: brackets, separators, wrapping and summary markers.
class layout {
 public:
  layout(const tensor_view& v, const tensor_format& f, const element_printer& printer)
      : v_(v), printer_(printer), edge_(f.edgeitems < 1 ? 1 : f.edgeitems) {
    // A shape whose element count overflows is certainly past the threshold.
    int64_t count = 1;
    bool overflow = false;
    for (int d = 0; d < v.ndim; ++d) overflow = overflow || __builtin_mul_overflow(count, v.shape[d], &count);
    summarize_ = overflow || count > f.threshold;
  }

  // Every element the output shows, in order.
  template <int N = 0>
  std::vector<const unsigned char*> shown() const {
    std::vector<const unsigned char*> out;
    int64_t idx[max_dims] = {};
    collect(0, idx, out);
    return out;
  }

  std::string render(int linewidth) const {
    int64_t idx[max_dims] = {};
    return recurse(0, idx, 1, linewidth);
  }

 private:
  bool summarized(int axis) const { return summarize_ && 2 * static_cast<int64_t>(edge_) < v_.shape[axis]; }

  const unsigned char* at(const int64_t* idx) const {
    int64_t off = 0;
    for (int d = 0; d < v_.ndim; ++d) off += idx[d] * v_.strides[d];
    return static_cast<const unsigned char*>(v_.data) + off * static_cast<int64_t>(v_.itemsize());
  }

  template <int N = 0>
  void collect(int axis, int64_t* idx, std::vector<const unsigned char*>& out) const {
    if (axis == v_.ndim) {
      out.push_back(at(idx));
      return;
    }
    const int64_t n = v_.shape[axis];
    for (int64_t i = 0; i < n; ++i) {
      if (summarized(axis) && i == edge_) i = n - edge_;
      idx[axis] = i;
      collect(axis + 1, idx, out);
    }
  }

  std::string recurse(int axis, int64_t* idx, long hanging, long width) const {
    std::string s;
    if (axis == v_.ndim) {
      printer_.emit(s, at(idx));
      return s;
    }
    const int64_t n = v_.shape[axis];
    const bool summary = summarized(axis);
    const int64_t leading = summary ? edge_ : 0, trailing = summary ? edge_ : n;
    const int axes_left = v_.ndim - axis;
    const std::string indent(static_cast<size_t>(hanging), ' ');
    auto item = [&](int64_t i) {
      idx[axis] = i;
      return recurse(axis + 1, idx, hanging + 1, width - 1);
    };
    if (axes_left == 1) {
      const long elem_width = width - 1;
      std::string line = indent;
      auto extend = [&](const std::string& word) {
        bool wrap = static_cast<long>(line.size() + word.size()) > elem_width;
        if (static_cast<long>(line.size()) <= hanging) wrap = false;
        if (wrap) {
          while (!line.empty() && line.back() == ' ') line.pop_back();
          s += line;
          s += '\n';
          line = indent;
        }
        line += word;
      };
      for (int64_t i = 0; i < leading; ++i) {
        extend(item(i));
        line += ' ';
      }
      if (summary) {
        extend("...");
        line += ' ';
      }
      for (int64_t i = trailing; i > 1; --i) {
        extend(item(n - i));
        line += ' ';
      }
      extend(item(n - 1));
      s += line;
    } else {
      const std::string line_sep(static_cast<size_t>(axes_left - 1), '\n');
      for (int64_t i = 0; i < leading; ++i) s += indent + item(i) + line_sep;
      if (summary) s += indent + "..." + line_sep;
      for (int64_t i = trailing; i > 1; --i) s += indent + item(n - i) + line_sep;
      s += indent + item(n - 1);
    }
    // Appended piece by piece: GCC 12 at -O3 -std=c++20 warns (-Wrestrict) on
    // "[" + s.substr(...) inside libstdc++, which would fail a user's -Werror build.
    std::string out;
    out.reserve(s.size() + 2);
    out += '[';
    out.append(s, static_cast<size_t>(hanging), std::string::npos);
    out += ']';
    return out;
  }

  const tensor_view& v_;
  const element_printer& printer_;
  int64_t edge_;
  bool summarize_ = false;
};

inline void describe(std::string& out, const tensor_view& v, const char* what) {
  out += '<';
  out += dtype_name(v.type);
  out += '[';
  for (int d = 0; d < v.ndim; ++d) {
    if (d) out += ", ";
    append_int(out, v.shape[d]);
  }
  out += "] ";
  out += what;
  out += '>';
}

}  // namespace tensor_text

PROBE_API void format_tensor(std::string& out, const tensor_view& v, const tensor_format& f) noexcept {
  using namespace tensor_text;
  const size_t start = out.size();
  try {
    if (!v.valid() || v.ndim > max_dims || dtype_size(v.type) == 0) {
      out += "<invalid tensor>";
      return;
    }
    for (int d = 0; d < v.ndim; ++d)
      if (v.shape[d] < 0) {
        out += "<invalid tensor>";
        return;
      }
    if (!v.where.is_host()) {
      char where[32];
      snprintf(where, sizeof where, "on cuda:%d", static_cast<int>(v.where.index));
      describe(out, v, where);
      return;
    }
    for (int d = 0; d < v.ndim; ++d)
      if (v.shape[d] == 0) {
        out += "[]";
        return;
      }
    if (!v.data) {
      describe(out, v, "with no data");
      return;
    }
    if (v.ndim == 0 && f.precision < 0) {
      scalar_str(out, static_cast<const unsigned char*>(v.data), v.type);
      return;
    }
    element_printer printer(v.type, f, v.ndim == 0);
    layout lay(v, f, printer);
    printer.fill(lay.shown());
    out += lay.render(f.linewidth);
  } catch (...) {
    out.resize(start);
  }
}

}  // namespace detail
PROBE_END_NAMESPACE
