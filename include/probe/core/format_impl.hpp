// probe::format's formatter: walks the format string, formats each erased argument by its
// spec, pads it. Tensors go to format_tensor (core/format_tensor_impl.hpp).
// Internal header.
#pragma once
#include <string.h>

#include <string>

#include "../util/float_text.hpp"
#include "../util/log.hpp"
#include "format.hpp"
#include "format_tensor.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

inline const char* format_error_text(format_error e) noexcept {
  switch (e) {
    case format_error::unmatched_open: return "'{' without a matching '}'";
    case format_error::unmatched_close: return "'}' without a matching '{' (write '}}' for a brace)";
    case format_error::bad_spec: return "malformed format spec";
    case format_error::mixed_indexing: return "mixes '{}' and '{N}' placeholders";
    case format_error::too_few_arguments: return "more placeholders than arguments";
    case format_error::too_many_arguments: return "more arguments than placeholders";
    case format_error::index_out_of_range: return "argument index out of range";
    case format_error::unused_argument: return "an argument is never used";
    default: return "no error";
  }
}

inline const char* format_arg_kind_name(arg_kind k) noexcept {
  switch (k) {
    case arg_kind::boolean: return "bool";
    case arg_kind::character: return "char";
    case arg_kind::signed_int: case arg_kind::unsigned_int: return "integer";
    case arg_kind::float32: case arg_kind::float64: return "floating-point";
    case arg_kind::string: return "string";
    case arg_kind::pointer: return "pointer";
    case arg_kind::tensor: return "tensor";
    default: return "missing";
  }
}

// Replaces what this call appended with "<message>" naming the problem; logs the first one.
inline void format_fail(std::string& out, size_t start, const char* fmt, size_t fmt_len, const char* what,
                        size_t pos, int nargs, int placeholders) {
  out.resize(start);
  out += "<probe::format error: ";
  out += what;
  char buf[96];
  if (placeholders >= 0) {
    snprintf(buf, sizeof buf, " (%d placeholder%s, %d argument%s)", placeholders, placeholders == 1 ? "" : "s",
             nargs, nargs == 1 ? "" : "s");
    out += buf;
  } else {
    snprintf(buf, sizeof buf, " at offset %zu", pos);
    out += buf;
  }
  out += " in \"";
  out.append(fmt, fmt_len > 200 ? 200 : fmt_len);
  if (fmt_len > 200) out += "...";
  out += "\">";
  static int logged = 0;
  log_once(&logged, "%.*s", static_cast<int>(out.size() - start - 2), out.c_str() + start + 1);
}

// UTF-8 code points, so that padding counts what a terminal shows (for ASCII, bytes).
inline size_t format_text_width(const char* s, size_t n) noexcept {
  size_t w = 0;
  for (size_t i = 0; i < n; ++i) w += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
  return w;
}

// Appends `body` padded to the spec's width. `numeric`: right-aligned by default, and '0'
// pads between the sign/prefix (the first `prefix_len` bytes) and the digits.
inline void format_pad(std::string& out, const char* body, size_t n, const format_spec& spec, bool numeric,
                       size_t prefix_len = 0) {
  const size_t w = format_text_width(body, n);
  const size_t width = spec.width > 0 ? static_cast<size_t>(spec.width) : 0;
  if (w >= width) {
    out.append(body, n);
    return;
  }
  const size_t pad = width - w;
  if (numeric && spec.zero_pad && spec.align == 0) {
    out.append(body, prefix_len);
    out.append(pad, '0');
    out.append(body + prefix_len, n - prefix_len);
    return;
  }
  const char align = spec.align ? spec.align : numeric ? '>' : '<';
  const size_t before = align == '>' ? pad : align == '^' ? pad / 2 : 0;
  out.append(before, spec.fill);
  out.append(body, n);
  out.append(pad - before, spec.fill);
}

inline size_t format_unsigned_digits(char* end, uint64_t v, unsigned base, bool upper) noexcept {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  char* p = end;
  do {
    *--p = digits[v % base];
    v /= base;
  } while (v);
  return static_cast<size_t>(end - p);
}

inline void format_sign(char* buf, size_t& n, bool negative, char sign) noexcept {
  if (negative)
    buf[n++] = '-';
  else if (sign == '+' || sign == ' ')
    buf[n++] = sign;
}

inline void format_float_value(std::string& out, double v, bool is_float32, const format_spec& spec);

inline void format_integer(std::string& out, bool negative, uint64_t magnitude, const format_spec& spec) {
  const char t = spec.type;
  if (t == 'e' || t == 'E' || t == 'f' || t == 'F' || t == 'g' || t == 'G' || t == '%') {
    const double d = static_cast<double>(magnitude);
    format_float_value(out, negative ? -d : d, false, spec);
    return;
  }
  if (t == 'c') {
    const char c = static_cast<char>(magnitude);
    format_pad(out, &c, 1, spec, false);
    return;
  }
  char buf[80];
  size_t n = 0;
  format_sign(buf, n, negative, spec.sign);
  unsigned base = 10;
  bool upper = false;
  const char* prefix = "";
  if (t == 'x' || t == 'X') {
    base = 16;
    upper = t == 'X';
    prefix = upper ? "0X" : "0x";
  } else if (t == 'o') {
    base = 8;
    prefix = magnitude ? "0" : "";
  } else if (t == 'b' || t == 'B') {
    base = 2;
    prefix = t == 'B' ? "0B" : "0b";
  }
  if (spec.alternate)
    for (const char* p = prefix; *p; ++p) buf[n++] = *p;
  const size_t prefix_len = n;
  char digits[72];
  const size_t dn = format_unsigned_digits(digits + sizeof digits, magnitude, base, upper);
  memcpy(buf + n, digits + sizeof digits - dn, dn);
  n += dn;
  format_pad(out, buf, n, spec, true, prefix_len);
}

inline void format_float_value(std::string& out, double v, bool is_float32, const format_spec& spec) {
  char buf[fixed_text_capacity + 8];
  size_t n = 0;
  const bool negative = fp_signbit(v);
  format_sign(buf, n, negative, spec.sign);
  const size_t prefix_len = n;
  const double mag = fp_abs(v);
  char t = spec.type;
  const bool upper = t == 'E' || t == 'F' || t == 'G';
  if (!fp_finite(v)) {
    const char* s = fp_nan(v) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
    memcpy(buf + n, s, 3);
    n += 3;
    // Zero padding never applies to nan/inf.
    format_spec plain = spec;
    plain.zero_pad = false;
    format_pad(out, buf, n, plain, true);
    return;
  }
  if (t == 0 && spec.precision < 0) {
    // Shortest round trip, numpy's scalar style ("0.1", "1.0", "1e-05").
    char text[shortest_text_capacity];
    const size_t m = is_float32 ? write_shortest(text, static_cast<float>(mag)) : write_shortest(text, mag);
    memcpy(buf + n, text, m);
    n += m;
  } else {
    const int precision = spec.precision >= 0 ? spec.precision : 6;
    char style = 'g';
    double x = mag;
    if (t == 'e' || t == 'E') style = 'e';
    if (t == 'f' || t == 'F' || t == '%') style = 'f';
    if (t == '%') x *= 100;
    n += fixed_text(buf + n, x, style, precision);
    if (spec.alternate && style != 'e' && !memchr(buf + prefix_len, '.', n - prefix_len) &&
        !memchr(buf + prefix_len, 'e', n - prefix_len))
      buf[n++] = '.';
    if (t == '%') buf[n++] = '%';
    if (upper)
      for (size_t i = prefix_len; i < n; ++i)
        if (buf[i] >= 'a' && buf[i] <= 'z') buf[i] = static_cast<char>(buf[i] - 'a' + 'A');
  }
  format_pad(out, buf, n, spec, true, prefix_len);
}

// Whether `type` applies to an argument of kind k.
inline bool format_type_fits(arg_kind k, char t) noexcept {
  if (t == 0) return true;
  const bool int_type = t == 'd' || t == 'x' || t == 'X' || t == 'o' || t == 'b' || t == 'B';
  const bool float_type = t == 'e' || t == 'E' || t == 'f' || t == 'F' || t == 'g' || t == 'G' || t == '%';
  switch (k) {
    case arg_kind::boolean: return t == 's' || int_type;
    case arg_kind::character: return t == 'c' || int_type;
    case arg_kind::signed_int: case arg_kind::unsigned_int: return int_type || float_type || t == 'c';
    case arg_kind::float32: case arg_kind::float64: return float_type;
    case arg_kind::string: return t == 's';
    case arg_kind::pointer: return t == 'p';
    case arg_kind::tensor: return t == 'e' || t == 'f' || t == 'g';
    default: return false;
  }
}

inline void format_one(std::string& out, const format_arg& a, const format_spec& spec) {
  switch (a.kind) {
    case arg_kind::boolean:
      if (spec.type && spec.type != 's') {
        format_integer(out, false, a.b ? 1 : 0, spec);
      } else {
        format_pad(out, a.b ? "true" : "false", a.b ? 4 : 5, spec, false);
      }
      return;
    case arg_kind::character:
      if (spec.type && spec.type != 'c') {
        const int v = static_cast<signed char>(a.c);
        format_integer(out, v < 0, static_cast<uint64_t>(v < 0 ? -v : v), spec);
      } else {
        format_pad(out, &a.c, 1, spec, false);
      }
      return;
    case arg_kind::signed_int: {
      const uint64_t mag = a.i < 0 ? 0 - static_cast<uint64_t>(a.i) : static_cast<uint64_t>(a.i);
      format_integer(out, a.i < 0, mag, spec);
      return;
    }
    case arg_kind::unsigned_int: format_integer(out, false, a.u, spec); return;
    case arg_kind::float32: format_float_value(out, static_cast<double>(a.f), true, spec); return;
    case arg_kind::float64: format_float_value(out, a.d, false, spec); return;
    case arg_kind::string: {
      size_t n = a.len;
      if (spec.precision >= 0 && static_cast<size_t>(spec.precision) < n) {
        // Truncate to `precision` code points without splitting one.
        size_t cps = 0, i = 0;
        for (; i < n; ++i) {
          if ((static_cast<unsigned char>(a.str[i]) & 0xC0) != 0x80) {
            if (cps == static_cast<size_t>(spec.precision)) break;
            ++cps;
          }
        }
        n = i;
      }
      format_pad(out, a.str, n, spec, false);
      return;
    }
    case arg_kind::pointer: {
      char buf[24] = {'0', 'x'};
      char digits[20];
      const size_t dn = format_unsigned_digits(digits + sizeof digits, reinterpret_cast<uintptr_t>(a.p), 16, false);
      memcpy(buf + 2, digits + sizeof digits - dn, dn);
      format_pad(out, buf, dn + 2, spec, true, 2);
      return;
    }
    case arg_kind::tensor: {
      tensor_format tf;
      if (spec.precision >= 0) tf.precision = spec.precision;
      if (spec.type) {
        tf.float_mode = spec.type;
        if (spec.precision < 0 && spec.type != 'g') tf.precision = 6;
      }
      tf.sign_plus = spec.sign == '+';
      if (spec.width <= 0) {
        format_tensor(out, a.view, tf);
      } else {
        std::string text;
        format_tensor(text, a.view, tf);
        format_pad(out, text.data(), text.size(), spec, false);
      }
      return;
    }
    default: out += "<missing argument>"; return;
  }
}

PROBE_API bool vformat_to(std::string& out, const char* fmt, size_t n, const format_arg* args, int nargs) noexcept {
  const size_t start = out.size();
  try {
    if (!fmt) fmt = "", n = 0;
    out.reserve(start + n + 16 * static_cast<size_t>(nargs));
    int automatic = 0;
    bool manual = false;
    uint64_t used = 0;
    int placeholders = 0;
    size_t i = 0;
    while (i < n) {
      // Copy the literal run up to the next brace.
      size_t j = i;
      while (j < n && fmt[j] != '{' && fmt[j] != '}') ++j;
      out.append(fmt + i, j - i);
      if (j >= n) break;
      if (j + 1 < n && fmt[j + 1] == fmt[j]) {
        out += fmt[j];
        i = j + 2;
        continue;
      }
      if (fmt[j] == '}') {
        format_fail(out, start, fmt, n, format_error_text(format_error::unmatched_close), j, nargs, -1);
        return false;
      }
      int index = -1;
      format_spec spec;
      format_error e = format_error::none;
      const size_t next = parse_placeholder(fmt, j, n, &index, &spec, &e);
      if (e != format_error::none) {
        format_fail(out, start, fmt, n, format_error_text(e), j, nargs, -1);
        return false;
      }
      ++placeholders;
      if (index < 0) {
        if (manual) {
          format_fail(out, start, fmt, n, format_error_text(format_error::mixed_indexing), j, nargs, -1);
          return false;
        }
        index = automatic++;
      } else {
        if (automatic > 0) {
          format_fail(out, start, fmt, n, format_error_text(format_error::mixed_indexing), j, nargs, -1);
          return false;
        }
        manual = true;
        if (index >= nargs) {
          format_fail(out, start, fmt, n, format_error_text(format_error::index_out_of_range), j, nargs, -1);
          return false;
        }
        if (index < 64) used |= uint64_t(1) << index;
      }
      if (index >= nargs) {
        // Count every placeholder for the message.
        format_check c = check_format(fmt, n, nargs);
        format_fail(out, start, fmt, n, format_error_text(format_error::too_few_arguments), j, nargs,
                    c.placeholders);
        return false;
      }
      const format_arg& a = args[index];
      if (!format_type_fits(a.kind, spec.type)) {
        char what[128];
        snprintf(what, sizeof what, "format type '%c' does not apply to argument %d (%s)", spec.type, index,
                 format_arg_kind_name(a.kind));
        format_fail(out, start, fmt, n, what, j, nargs, -1);
        return false;
      }
      format_one(out, a, spec);
      i = next;
    }
    if (!manual && automatic < nargs) {
      format_fail(out, start, fmt, n, format_error_text(format_error::too_many_arguments), n, nargs, placeholders);
      return false;
    }
    if (manual)
      for (int k = 0; k < nargs && k < 64; ++k)
        if (!(used >> k & 1)) {
          char what[64];
          snprintf(what, sizeof what, "argument %d is never used", k);
          format_fail(out, start, fmt, n, what, n, nargs, -1);
          return false;
        }
    return true;
  } catch (...) {
    // Out of memory: keep what fits, never throw into the caller.
    return false;
  }
}

}  // namespace detail
PROBE_END_NAMESPACE
