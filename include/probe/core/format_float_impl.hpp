// Floating-point elements of tensors as numpy prints them: the digits of dragon4_positional
// and dragon4_scientific, and FloatingFormat's choice of notation and paddings (numpy's
// arrayprint algorithm), plus numpy's str() of a float scalar. Internal header.
#pragma once
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

#include "../util/float_text.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

namespace tensor_text {

enum class float_kind : uint8_t { f16, bf16, f32, f64 };

struct fvalue {
  double v;       // exact value
  uint16_t bits;  // the 16-bit formats' bit pattern, for their shortest digits
};

inline void shortest(const fvalue& x, float_kind k, decimal& d) noexcept {
  switch (k) {
    case float_kind::f16: shortest_decimal_f16(x.bits, d); break;
    case float_kind::bf16: shortest_decimal_bf16(x.bits, d); break;
    case float_kind::f32: shortest_decimal(static_cast<float>(x.v), d); break;
    default: shortest_decimal(x.v, d); break;
  }
}

// The pieces of one finite number as numpy's dragon4 prints it: sign and integer digits,
// fraction digits, and (scientific) the exponent.
struct parts {
  std::string int_part;  // with its sign
  std::string frac;
  int exp10 = 0;
};

inline void put_sign(parts& p, double v, bool sign_plus) {
  if (fp_signbit(v))
    p.int_part += '-';
  else if (sign_plus)
    p.int_part += '+';
}

// dragon4_positional. unique: the shortest digits that identify the value, but never
// stopping before `min_digits` digits after the point (-1: no minimum; 0 means the integer
// digits are all exact) nor going past `precision`; the last digit rounds the exact value.
// Not unique: exactly `precision` digits after the point.
inline parts positional(const fvalue& x, float_kind k, int precision, int min_digits, bool unique, bool sign_plus) {
  parts p;
  put_sign(p, x.v, sign_plus);
  decimal d;
  int stop = precision;
  bool use_shortest = false;
  if (unique) {
    shortest(x, k, d);
    const int shortest_stop = d.count - d.point;  // digits after the point (< 0: zeros before it)
    stop = min_digits >= 0 && min_digits > shortest_stop ? min_digits : shortest_stop;
    if (precision >= 0 && stop > precision) stop = precision;
    use_shortest = stop == shortest_stop;
  }
  if (use_shortest) {
    if (d.point <= 0) {
      p.int_part += '0';
      p.frac.append(static_cast<size_t>(-d.point), '0');
      p.frac.append(d.digits, static_cast<size_t>(d.count));
    } else {
      for (int i = 0; i < d.point; ++i) p.int_part += i < d.count ? d.digits[i] : '0';
      if (d.count > d.point) p.frac.append(d.digits + d.point, static_cast<size_t>(d.count - d.point));
    }
    return p;
  }
  char buf[fixed_text_capacity];
  const size_t n = fixed_text(buf, fp_abs(x.v), 'f', stop < 0 ? 0 : stop);
  const char* dot = static_cast<const char*>(memchr(buf, '.', n));
  const size_t int_len = dot ? static_cast<size_t>(dot - buf) : n;
  p.int_part.append(buf, int_len);
  if (dot) p.frac.append(dot + 1, n - int_len - 1);
  if (unique)
    while (!p.frac.empty() && p.frac.back() == '0') p.frac.pop_back();
  return p;
}

// dragon4_scientific, with the same meaning of the arguments (digits after the first one).
inline parts scientific(const fvalue& x, float_kind k, int precision, int min_digits, bool unique, bool sign_plus) {
  parts p;
  put_sign(p, x.v, sign_plus);
  decimal d;
  int stop = precision;
  bool use_shortest = false;
  if (unique) {
    shortest(x, k, d);
    const int shortest_stop = d.count - 1;
    stop = min_digits > shortest_stop ? min_digits : shortest_stop;
    if (precision >= 0 && stop > precision) stop = precision;
    use_shortest = stop == shortest_stop;
  }
  if (!use_shortest) {
    char buf[fixed_text_capacity];
    const size_t n = fixed_text(buf, fp_abs(x.v), 'e', stop < 0 ? 0 : stop);
    buf[n] = 0;
    const char* e = static_cast<const char*>(memchr(buf, 'e', n));
    p.int_part += buf[0];
    if (n > 1 && buf[1] == '.') p.frac.append(buf + 2, static_cast<size_t>(e - buf - 2));
    p.exp10 = static_cast<int>(strtol(e + 1, nullptr, 10));
    if (unique)
      while (!p.frac.empty() && p.frac.back() == '0') p.frac.pop_back();
    return p;
  }
  p.int_part += d.digits[0];
  if (d.count > 1) p.frac.append(d.digits + 1, static_cast<size_t>(d.count - 1));
  p.exp10 = d.count == 1 && d.digits[0] == '0' ? 0 : d.point - 1;
  return p;
}

inline size_t exp_digit_count(int e) noexcept {
  if (e < 0) e = -e;
  size_t n = 1;
  while (e >= 10) {
    e /= 10;
    ++n;
  }
  return n < 2 ? 2 : n;
}

// numpy's FloatingFormat: decides notation and paddings from the shown values, then prints
// each one to the same width.
class float_formatter {
 public:
  float_formatter(float_kind k, char mode, int precision, bool sign_plus)
      : kind_(k), fixed_(mode != 'g'), precision_(precision), sign_plus_(sign_plus) {
    if (mode == 'e') force_ = 'e';
    if (mode == 'f') force_ = 'f';
  }

  template <int N = 0>
  void fill(const std::vector<fvalue>& data) {
    std::vector<const fvalue*> finite;
    bool any_neg_inf = false;
    double max_val = 0, min_val = fp_huge();
    for (const fvalue& x : data) {
      if (fp_finite(x.v)) {
        finite.push_back(&x);
        const double a = fp_abs(x.v);
        if (a != 0) {
          if (a > max_val) max_val = a;
          if (a < min_val) min_val = a;
        }
      } else if (fp_inf(x.v) && x.v < 0) {
        any_neg_inf = true;
      }
    }
    if (force_) {
      exp_format_ = force_ == 'e';
    } else if (min_val != fp_huge()) {
      // numpy compares in double but divides in the array's own type.
      const double ratio = kind_ == float_kind::f64 ? max_val / min_val
                                                    : static_cast<double>(static_cast<float>(max_val) /
                                                                          static_cast<float>(min_val));
      exp_format_ = max_val >= 1e8 || min_val < 0.0001 || ratio > 1000.;
    }
    unique_ = !fixed_;
    if (finite.empty()) {
      pad_left_ = pad_right_ = 0;
      exp_size_ = -1;
      unique_ = true;
      min_digits_ = 0;
    } else if (exp_format_) {
      size_t int_w = 0, frac_w = 0, exp_w = 0;
      for (const fvalue* x : finite) {
        const parts p = scientific(*x, kind_, precision_, -1, unique_, sign_plus_);
        int_w = p.int_part.size() > int_w ? p.int_part.size() : int_w;
        frac_w = p.frac.size() > frac_w ? p.frac.size() : frac_w;
        const size_t e = exp_digit_count(p.exp10);
        exp_w = e > exp_w ? e : exp_w;
      }
      exp_size_ = static_cast<int>(exp_w);
      precision_ = min_digits_ = static_cast<int>(frac_w);
      pad_left_ = static_cast<int>(int_w);
      pad_right_ = exp_size_ + 2 + precision_;
    } else {
      size_t int_w = 0, frac_w = 0;
      for (const fvalue* x : finite) {
        const parts p = positional(*x, kind_, precision_, -1, unique_, sign_plus_);
        int_w = p.int_part.size() > int_w ? p.int_part.size() : int_w;
        frac_w = p.frac.size() > frac_w ? p.frac.size() : frac_w;
      }
      pad_left_ = static_cast<int>(int_w);
      pad_right_ = static_cast<int>(frac_w);
      exp_size_ = -1;
      if (fixed_)
        precision_ = min_digits_ = pad_right_;
      else
        min_digits_ = 0;
    }
    if (finite.size() != data.size()) {
      const int neginf = (sign_plus_ || any_neg_inf) ? 1 : 0;
      const int offset = pad_right_ + 1;
      if (3 - offset > pad_left_) pad_left_ = 3 - offset;
      if (3 + neginf - offset > pad_left_) pad_left_ = 3 + neginf - offset;
    }
  }

  void emit(std::string& out, const fvalue& x) const {
    if (!fp_finite(x.v)) {
      const char* s = fp_nan(x.v) ? (sign_plus_ ? "+nan" : "nan")
                                 : x.v < 0 ? "-inf" : (sign_plus_ ? "+inf" : "inf");
      const int len = static_cast<int>(strlen(s));
      const int width = pad_left_ + pad_right_ + 1;
      if (width > len) out.append(static_cast<size_t>(width - len), ' ');
      out += s;
      return;
    }
    parts p = exp_format_ ? scientific(x, kind_, precision_, min_digits_, unique_, sign_plus_)
                          : positional(x, kind_, precision_, min_digits_, unique_, sign_plus_);
    if (static_cast<int>(p.frac.size()) < min_digits_) p.frac.append(static_cast<size_t>(min_digits_) - p.frac.size(), '0');
    if (static_cast<int>(p.int_part.size()) < pad_left_)
      out.append(static_cast<size_t>(pad_left_) - p.int_part.size(), ' ');
    out += p.int_part;
    out += '.';
    out += p.frac;
    if (exp_format_) {
      out += 'e';
      out += p.exp10 < 0 ? '-' : '+';
      char digits[16];
      const int e = p.exp10 < 0 ? -p.exp10 : p.exp10;
      const int n = snprintf(digits, sizeof digits, "%d", e);
      for (int i = n; i < exp_size_; ++i) out += '0';
      out += digits;
    } else if (static_cast<int>(p.frac.size()) < pad_right_) {
      out.append(static_cast<size_t>(pad_right_) - p.frac.size(), ' ');
    }
  }

 private:
  float_kind kind_;
  bool fixed_;
  int precision_;
  bool sign_plus_;
  char force_ = 0;
  bool exp_format_ = false;
  bool unique_ = true;
  int pad_left_ = 0, pad_right_ = 0, exp_size_ = -1, min_digits_ = 0;
};

// numpy's scalar str for floats: shortest digits, "1.0" / "1e-05"; `bare` drops the ".0" of
// integral values (numpy's complex parts: "(1+2j)").
inline void scalar_float(std::string& out, const fvalue& x, float_kind k, bool sign_plus, bool bare) {
  if (!fp_finite(x.v)) {
    if (fp_nan(x.v))
      out += sign_plus ? "+nan" : "nan";
    else
      out += x.v < 0 ? "-inf" : sign_plus ? "+inf" : "inf";
    return;
  }
  decimal d;
  shortest(x, k, d);
  if (!d.negative && sign_plus) out += '+';
  char buf[400];
  size_t n = write_decimal(buf, d, prefers_scientific(x.v));
  if (bare && n >= 2 && buf[n - 2] == '.' && buf[n - 1] == '0') n -= 2;
  out.append(buf, n);
}

}  // namespace tensor_text

}  // namespace detail
PROBE_END_NAMESPACE
