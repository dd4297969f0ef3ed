// The JSON parser behind json::parse (json_read_impl.hpp), in a header of its own so that the
// CLI's flat reader of manifest lines (tools/analysis/json_tape.hpp) shares its lexing: one
// string decoder, one number reader, one set of error messages. Internal.
#pragma once
#include <charconv>

#include "../util/float_text.hpp"
#include "../util/text.hpp"
#include "json_read.hpp"

PROBE_BEGIN_NAMESPACE
namespace json {

namespace read_impl {

class parser {
 public:
  parser(const char* s, size_t n, const parse_options& o) : s_(s), n_(n), o_(o) {}

  bool document(value& out) {
    if (n_ >= 3 && memcmp(s_, "\xEF\xBB\xBF", 3) == 0) i_ = 3;
    skip_ws();
    if (i_ >= n_) return fail("empty input, expected a JSON value");
    if (!parse_value(out, 0)) return false;
    skip_ws();
    if (i_ < n_) return fail("unexpected text after the JSON value");
    return true;
  }

  // "line L, column C: what" for the first error, with L and C counted from 1 (C in bytes).
  std::string error() const {
    size_t line = 1, col = 1;
    for (size_t k = 0; k < err_at_ && k < n_; ++k) {
      if (s_[k] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + err_;
  }

 protected:
  bool fail(const char* what) {
    if (err_.empty()) {
      err_ = what;
      err_at_ = i_;
    }
    return false;
  }
  void skip_ws() {
    while (i_ < n_ && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool literal(const char* word) {
    const size_t len = strlen(word);
    if (n_ - i_ < len || memcmp(s_ + i_, word, len) != 0) return false;
    i_ += len;
    return true;
  }

  bool parse_value(value& out, int depth) {
    if (i_ >= n_) return fail("unexpected end of input, expected a value");
    switch (s_[i_]) {
      case '{': return parse_object(out, depth + 1);
      case '[': return parse_array(out, depth + 1);
      case '"': {
        std::string str;
        if (!parse_string(str)) return false;
        out = value::string(std::move(str));
        return true;
      }
      case 't':
        if (literal("true")) return out = value::boolean(true), true;
        break;
      case 'f':
        if (literal("false")) return out = value::boolean(false), true;
        break;
      case 'n':
        if (literal("null")) return out = value(), true;
        break;
      case 'N':
        if (literal("NaN")) return out = value::number(detail::fp_quiet_nan()), true;
        break;
      case 'I':
        if (literal("Infinity")) return out = value::number(detail::fp_huge()), true;
        break;
      default:
        if (s_[i_] == '-' || (s_[i_] >= '0' && s_[i_] <= '9')) return parse_number(out);
        break;
    }
    return fail("expected a value (object, array, string, number, true, false or null)");
  }

  bool parse_object(value& out, int depth) {
    if (depth > o_.max_depth) return fail("nesting deeper than the limit");
    ++i_;
    out = value::object();
    skip_ws();
    if (i_ < n_ && s_[i_] == '}') {
      ++i_;
      return true;
    }
    for (;;) {
      skip_ws();
      if (i_ >= n_ || s_[i_] != '"') return fail("expected '\"' to begin an object member name");
      std::string k;
      if (!parse_string(k)) return false;
      skip_ws();
      if (i_ >= n_ || s_[i_] != ':') return fail("expected ':' after an object member name");
      ++i_;
      skip_ws();
      value& v = out.add(std::move(k), value());
      if (!parse_value(v, depth)) return false;
      skip_ws();
      if (i_ < n_ && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < n_ && s_[i_] == '}') {
        ++i_;
        return true;
      }
      return fail("expected ',' or '}' after an object member");
    }
  }

  bool parse_array(value& out, int depth) {
    if (depth > o_.max_depth) return fail("nesting deeper than the limit");
    ++i_;
    out = value::array();
    skip_ws();
    if (i_ < n_ && s_[i_] == ']') {
      ++i_;
      return true;
    }
    for (;;) {
      skip_ws();
      value& v = out.push(value());
      if (!parse_value(v, depth)) return false;
      skip_ws();
      if (i_ < n_ && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < n_ && s_[i_] == ']') {
        ++i_;
        return true;
      }
      return fail("expected ',' or ']' after an array element");
    }
  }

  // Four hex digits at i_; -1 if not.
  long hex4() {
    if (n_ - i_ < 4) return -1;
    long v = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = s_[i_ + static_cast<size_t>(k)];
      const int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    i_ += 4;
    return v;
  }

  bool parse_string(std::string& out) {
    ++i_;  // the opening quote
    for (;;) {
      const size_t run = i_;
      while (i_ < n_ && s_[i_] != '"' && s_[i_] != '\\' && static_cast<unsigned char>(s_[i_]) >= 0x20) ++i_;
      out.append(s_ + run, i_ - run);
      if (i_ >= n_) return fail("unterminated string");
      const char c = s_[i_];
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c != '\\') return fail("control character in a string (it must be escaped)");
      ++i_;
      if (i_ >= n_) return fail("unterminated string");
      const char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const size_t at = i_ - 2;
          long cp = hex4();
          if (cp < 0) {
            i_ = at;
            return fail("\\u needs four hex digits");
          }
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            // A high surrogate pairs with a following \uDC00-\uDFFF.
            const size_t save = i_;
            long low = -1;
            if (n_ - i_ >= 2 && s_[i_] == '\\' && s_[i_ + 1] == 'u') {
              i_ += 2;
              low = hex4();
            }
            if (low >= 0xDC00 && low <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else {
              i_ = save;
              cp = 0xFFFD;
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            cp = 0xFFFD;
          }
          ::probe::detail::append_utf8(out, static_cast<uint32_t>(cp));
          break;
        }
        default:
          i_ -= 2;
          return fail("unknown escape in a string");
      }
    }
  }

  bool parse_number(value& out) {
    double d = 0;
    int64_t i = 0;
    bool int_text = false;
    if (!scan_number(&d, &i, &int_text)) return false;
    out = int_text ? value::integer(i) : value::number(d);
    return true;
  }

  // A number token at i_ (or -Infinity): *int_text when written as an integer that fits
  // int64_t (*i exact), else *d.
  bool scan_number(double* d, int64_t* i, bool* int_text) {
    const size_t start = i_;
    *int_text = false;
    if (s_[i_] == '-') {
      ++i_;
      if (literal("Infinity")) {
        *d = -detail::fp_huge();
        return true;
      }
    }
    auto digits = [&] {
      const size_t k = i_;
      while (i_ < n_ && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      return i_ - k;
    };
    if (i_ < n_ && s_[i_] == '0') {
      ++i_;
      if (i_ < n_ && s_[i_] >= '0' && s_[i_] <= '9') return fail("leading zeros are not allowed in numbers");
    } else if (digits() == 0) {
      return fail("expected digits in a number");
    }
    bool integral = true;
    if (i_ < n_ && s_[i_] == '.') {
      ++i_;
      integral = false;
      if (digits() == 0) return fail("expected digits after the decimal point");
    }
    if (i_ < n_ && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      integral = false;
      if (i_ < n_ && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (digits() == 0) return fail("expected digits in the exponent");
    }
    const char* text = s_ + start;
    const size_t len = i_ - start;
    if (integral) {
      const auto r = std::from_chars(text, text + len, *i);
      if (r.ec == std::errc() && r.ptr == text + len) {
        *int_text = true;
        *d = static_cast<double>(*i);
        return true;
      }
    }
    detail::parse_double(text, len, d);
    return true;
  }

  const char* s_;
  size_t n_;
  const parse_options& o_;
  size_t i_ = 0;
  std::string err_;
  size_t err_at_ = 0;
};

}  // namespace read_impl

}  // namespace json
PROBE_END_NAMESPACE
