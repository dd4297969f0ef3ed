// .npy headers (npy.hpp): dtype descriptors both ways, and reading the header's prefix and
// its dict text -- the part of a file that comes from outside and is parsed.
#pragma once
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.hpp"

PROBE_BEGIN_NAMESPACE
namespace npy {
namespace detail {

inline bool native_little_endian() noexcept {
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return false;
#else
  return true;
#endif
}

// numpy's descr for a dtype in this machine's byte order, e.g. "'<f4'", quoted as it appears
// in the header ("" if none).
inline const char* descr_of(dtype t) noexcept {
  const bool le = native_little_endian();
  switch (t) {
    case dtype::boolean: return "'|b1'";
    case dtype::int8: return "'|i1'";
    case dtype::uint8: return "'|u1'";
    case dtype::int16: return le ? "'<i2'" : "'>i2'";
    case dtype::int32: return le ? "'<i4'" : "'>i4'";
    case dtype::int64: return le ? "'<i8'" : "'>i8'";
    case dtype::uint16: return le ? "'<u2'" : "'>u2'";
    case dtype::uint32: return le ? "'<u4'" : "'>u4'";
    case dtype::uint64: return le ? "'<u8'" : "'>u8'";
    case dtype::float16: return le ? "'<f2'" : "'>f2'";
    case dtype::float32: return le ? "'<f4'" : "'>f4'";
    case dtype::float64: return le ? "'<f8'" : "'>f8'";
    case dtype::complex64: return le ? "'<c8'" : "'>c8'";
    case dtype::complex128: return le ? "'<c16'" : "'>c16'";
    case dtype::bfloat16: return le ? "[('bfloat16', '<u2')]" : "[('bfloat16', '>u2')]";
    default: return "";
  }
}

// Maps a simple descr ("<f4", "|b1", ">c16", "=i8", "?") to a dtype and byte order.
inline bool dtype_of_descr(const char* d, dtype* t, bool* swap) noexcept {
  char order = '|';
  if (*d == '<' || *d == '>' || *d == '|' || *d == '=') order = *d++;
  struct entry {
    const char* code;
    dtype type;
  };
  static const entry table[] = {
      {"b1", dtype::boolean}, {"?", dtype::boolean},    {"i1", dtype::int8},
      {"i2", dtype::int16},   {"i4", dtype::int32},     {"i8", dtype::int64},
      {"u1", dtype::uint8},   {"u2", dtype::uint16},    {"u4", dtype::uint32},
      {"u8", dtype::uint64},  {"f2", dtype::float16},   {"f4", dtype::float32},
      {"f8", dtype::float64}, {"c8", dtype::complex64}, {"c16", dtype::complex128},
  };
  for (const entry& e : table) {
    if (strcmp(d, e.code) == 0) {
      *t = e.type;
      const bool little = native_little_endian();
      *swap = dtype_size(e.type) > 1 && ((order == '<' && !little) || (order == '>' && little));
      return true;
    }
  }
  return false;
}

// A cursor over the header text: just enough of Python's literal syntax for numpy headers
// (strings, integers, True/False/None, tuples, lists, dicts), with limits on string length
// and nesting. The first failure's message is kept.
class literal_parser {
 public:
  static constexpr size_t max_string = 255;

  literal_parser(const char* text, size_t n) noexcept : p_(text), end_(text + n) {}

  bool failed() const noexcept { return why_[0] != 0; }
  const char* why() const noexcept { return why_; }

  PROBE_PRINTF_LIKE(2, 3) bool fail(const char* fmt, ...) noexcept {
    if (!why_[0]) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(why_, sizeof why_, fmt, ap);
      va_end(ap);
    }
    return false;
  }

  void skip_space() noexcept {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  // Consumes c (after spaces) if it is next.
  PROBE_NOINLINE bool accept(char c) noexcept {
    skip_space();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool expect(char c, const char* where) noexcept {
    return accept(c) || fail("expected '%c' %s", c, where);
  }
  bool at(char c) noexcept {
    skip_space();
    return p_ < end_ && *p_ == c;
  }
  bool at_end() noexcept {
    skip_space();
    return p_ >= end_;
  }

  // A quoted string into out (max_string + 1 bytes).
  PROBE_NOINLINE bool string(char* out) noexcept {
    skip_space();
    if (p_ >= end_ || (*p_ != '\'' && *p_ != '"')) return fail("expected a quoted string");
    const char q = *p_++;
    size_t n = 0;
    while (p_ < end_ && *p_ != q) {
      if (*p_ == '\\' && p_ + 1 < end_) ++p_;
      if (n == max_string) return fail("string too long");
      out[n++] = *p_++;
    }
    out[n] = 0;
    if (p_ >= end_) return fail("unterminated string");
    ++p_;
    return true;
  }

  PROBE_NOINLINE bool integer(int64_t* out) noexcept {
    skip_space();
    bool negative = false;
    if (p_ < end_ && (*p_ == '-' || *p_ == '+')) negative = *p_++ == '-';
    if (p_ >= end_ || *p_ < '0' || *p_ > '9') return fail("expected an integer");
    uint64_t v = 0;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      const uint64_t digit = static_cast<uint64_t>(*p_++ - '0');
      if (v > (static_cast<uint64_t>(INT64_MAX) - digit) / 10) return fail("integer too large");
      v = v * 10 + digit;
    }
    if (p_ < end_ && (*p_ == 'L' || *p_ == 'l')) ++p_;  // Python 2 long
    *out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return true;
  }

  bool boolean(bool* out) noexcept {
    skip_space();
    const bool t = word("True");
    if (!t && !word("False")) return fail("expected True or False");
    *out = t;
    return true;
  }

  // Skips any value (for keys probe does not use).
  bool skip_value(int depth = 0) noexcept {
    if (depth > 16) return fail("nested too deeply");
    skip_space();
    if (p_ >= end_) return fail("unexpected end of header");
    const char c = *p_;
    if (c == '\'' || c == '"') {
      char s[max_string + 1];
      return string(s);
    }
    if (c == '(' || c == '[' || c == '{') {
      const char close = c == '(' ? ')' : c == '[' ? ']' : '}';
      ++p_;
      while (!accept(close)) {
        if (!skip_value(depth + 1)) return false;
        if (c == '{' && (!expect(':', "in a dict") || !skip_value(depth + 1))) return false;
        if (!accept(',') && !at(close)) return fail("expected ',' or '%c'", close);
      }
      return true;
    }
    if ((c >= '0' && c <= '9') || c == '-' || c == '+') {
      int64_t v;
      return integer(&v);
    }
    if (word("True") || word("False") || word("None")) return true;
    return fail("unexpected character '%c'", c >= 32 && c < 127 ? c : '?');
  }

 private:
  bool word(const char* w) noexcept {
    const size_t n = strlen(w);
    if (static_cast<size_t>(end_ - p_) >= n && memcmp(p_, w, n) == 0) {
      p_ += n;
      return true;
    }
    return false;
  }

  const char* p_;
  const char* end_;
  char why_[160] = {};
};

// descr: a simple type string, or the structured form probe uses for bfloat16.
inline PROBE_NOINLINE bool parse_descr(literal_parser& in, header_info* info) noexcept {
  char name[literal_parser::max_string + 1], code[literal_parser::max_string + 1];
  if (in.accept('[')) {
    if (!in.expect('(', "in a structured descr") || !in.string(name) ||
        !in.expect(',', "in a structured descr") || !in.string(code))
      return false;
    in.accept(',');
    if (!in.expect(')', "in a structured descr")) return false;
    in.accept(',');
    if (!in.at(']') || strcmp(name, "bfloat16") != 0)
      return in.fail("unsupported structured dtype (probe reads only [('bfloat16', '<u2')])");
    in.accept(']');
    dtype bits;
    if (!dtype_of_descr(code, &bits, &info->swap_bytes) || bits != dtype::uint16)
      return in.fail("bfloat16 field must be '<u2' or '>u2', not '%s'", code);
    info->type = dtype::bfloat16;
    return true;
  }
  if (!in.string(code)) return false;
  if (!dtype_of_descr(code, &info->type, &info->swap_bytes))
    return in.fail("unsupported dtype '%.32s' (probe reads bool, int8-64, uint8-64, "
                   "float16/32/64, complex64/128, bfloat16)", code);
  return true;
}

inline PROBE_NOINLINE bool parse_shape(literal_parser& in, header_info* info) noexcept {
  if (!in.expect('(', "to open the shape")) return false;
  info->ndim = 0;
  while (!in.accept(')')) {
    int64_t v = 0;
    if (!in.integer(&v)) return false;
    if (v < 0) return in.fail("negative dimension %lld in shape", static_cast<long long>(v));
    if (info->ndim == max_dims) return in.fail("more than %d dimensions", max_dims);
    info->shape[info->ndim++] = v;
    if (!in.accept(',') && !in.at(')')) return in.fail("expected ',' or ')' in shape");
  }
  return true;
}

inline PROBE_PRINTF_LIKE(2, 3) bool set_why(std::string* why, const char* fmt, ...) noexcept {
  if (!why) return false;
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  try {
    why->assign(buf);
  } catch (...) {
  }
  return false;
}

}  // namespace detail

// Parses the dict text of a header into info (type, order, shape, data_bytes). `why` gets
// what is wrong when it returns false.
PROBE_API bool parse_header_text(const char* text, size_t n, header_info* info, std::string* why) noexcept {
  detail::literal_parser in(text, n);
  bool have_descr = false, have_order = false, have_shape = false;
  if (in.expect('{', "at the start of the header")) {
    while (!in.accept('}')) {
      char key[detail::literal_parser::max_string + 1];
      if (!in.string(key) || !in.expect(':', "after a key")) break;
      bool ok;
      if (strcmp(key, "descr") == 0) {
        ok = have_descr = detail::parse_descr(in, info);
      } else if (strcmp(key, "fortran_order") == 0) {
        ok = have_order = in.boolean(&info->fortran_order);
      } else if (strcmp(key, "shape") == 0) {
        ok = have_shape = detail::parse_shape(in, info);
      } else {
        ok = in.skip_value();
      }
      if (!ok) break;
      if (!in.accept(',') && !in.at('}')) {
        in.fail("expected ',' or '}' in the header dict");
        break;
      }
    }
  }
  if (!in.failed() && !in.at_end()) in.fail("unexpected text after the header dict");
  if (!in.failed() && !have_descr) in.fail("header has no 'descr'");
  if (!in.failed() && !have_order) in.fail("header has no 'fortran_order'");
  if (!in.failed() && !have_shape) in.fail("header has no 'shape'");
  if (in.failed()) return detail::set_why(why, "bad header: %s", in.why());
  // Size of the data. As numpy does, the product of the non-zero dimensions times the item size
  // must fit: a zero dimension makes the array empty, not any shape acceptable ((2^62, 2^62, 0)
  // would overflow every reader that multiplies the shape out).
  uint64_t nonzero = dtype_size(info->type);
  bool empty = false;
  for (int i = 0; i < info->ndim; ++i) {
    if (info->shape[i] == 0) {
      empty = true;
      continue;
    }
    if (__builtin_mul_overflow(nonzero, static_cast<uint64_t>(info->shape[i]), &nonzero) ||
        nonzero > static_cast<uint64_t>(INT64_MAX))
      return detail::set_why(why, "bad header: shape too large");
  }
  info->data_bytes = empty ? 0 : static_cast<size_t>(nonzero);
  return true;
}

// Parses the fixed prefix (magic, version, header length) from the first bytes of a file.
// On success sets major/minor, *text_offset (where the dict text starts) and *text_len.
PROBE_API bool parse_prefix(const unsigned char* p, size_t n, header_info* info, size_t* text_offset,
                         size_t* text_len, std::string* why) noexcept {
  static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (n < 10 || memcmp(p, magic, 6) != 0) {
    const bool partial = n > 0 && memcmp(p, magic, n < 6 ? n : 6) == 0;
    return detail::set_why(why, partial ? "truncated: file ends inside the header"
                                        : "not an .npy file (no \\x93NUMPY magic)");
  }
  info->major = p[6];
  info->minor = p[7];
  if (info->major == 1) {
    *text_offset = 10;
    *text_len = static_cast<size_t>(p[8]) | static_cast<size_t>(p[9]) << 8;
  } else if (info->major == 2 || info->major == 3) {
    if (n < 12) return detail::set_why(why, "truncated: file ends inside the header");
    *text_offset = 12;
    *text_len = static_cast<size_t>(p[8]) | static_cast<size_t>(p[9]) << 8 |
                static_cast<size_t>(p[10]) << 16 | static_cast<size_t>(p[11]) << 24;
  } else {
    return detail::set_why(why, "unsupported .npy version %d.%d", info->major, info->minor);
  }
  if (*text_len > max_header_bytes)
    return detail::set_why(why, "header length %zu exceeds the %zu-byte limit", *text_len,
                           max_header_bytes);
  return true;
}

}  // namespace npy
PROBE_END_NAMESPACE
