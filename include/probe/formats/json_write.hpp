// A streaming JSON writer that appends to a std::string, made for writing one manifest line
// quickly: commas are placed for you, strings are escaped, numbers are exact.
//
//   std::string line;
//   probe::json::writer w(line);
//   w.begin_object().member("op", name).member("seq", 12).member("mean", 0.25).end_object();
//
// Strings: '"', '\\' and control characters are escaped (\n, \t, ... or \u00XX); bytes that
// are not valid UTF-8 become \ufffd, so the output is always valid JSON; U+2028/U+2029 are
// escaped so the text can be embedded in a <script>. Integers are written exactly; doubles
// as the shortest text that reads back the same ("0.1", "1.0", "1e-05"); NaN and infinities,
// which JSON cannot express, are written as null -- or, with writer::nonfinite::tokens, as
// Python's NaN / Infinity / -Infinity, which probe's reader and Python's json module accept.
// Standalone, deferred inline (inline).
#pragma once
#include <stdint.h>
#include <string.h>

#include <string>
#include <string_view>

#include "../util/float_text.hpp"
#include "../util/int_text.hpp"

PROBE_BEGIN_NAMESPACE
namespace json {

// Appends s as a JSON string literal, quotes included.
inline void write_string(std::string& out, std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  const unsigned char* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned char* end = p + s.size();
  while (p < end) {
    // Copy the run of bytes that need nothing.
    const unsigned char* run = p;
    while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') ++p;
    out.append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
    if (p >= end) break;
    const unsigned char c = *p;
    if (c < 0x80) {
      out += '\\';
      switch (c) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '\n': out += 'n'; break;
        case '\t': out += 't'; break;
        case '\r': out += 'r'; break;
        case '\b': out += 'b'; break;
        case '\f': out += 'f'; break;
        default:
          out += "u00";
          out += hex[c >> 4];
          out += hex[c & 15];
      }
      ++p;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte; the second byte's range excludes
    // overlong forms, surrogates and code points past U+10FFFF. An invalid sequence becomes
    // one U+FFFD per maximal invalid subpart (as Unicode recommends and Python decodes).
    int need = 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    int len = 1;
    uint32_t cp = need == 1 ? (c & 0x1Fu) : need == 2 ? (c & 0x0Fu) : (c & 0x07u);
    while (need > 0 && len <= need && p + len < end) {
      const unsigned b = p[len];
      if (len == 1 ? (b < lo || b > hi) : (b & 0xC0) != 0x80) break;
      cp = (cp << 6) | (b & 0x3F);
      ++len;
    }
    const bool valid = need > 0 && len == need + 1;
    if (!valid) {
      out += "\\ufffd";
      p += len;
    } else if (cp == 0x2028 || cp == 0x2029) {
      out += cp == 0x2028 ? "\\u2028" : "\\u2029";
      p += len;
    } else {
      out.append(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
      p += len;
    }
  }
  out += '"';
}

class writer {
 public:
  enum class nonfinite : uint8_t { null, tokens };

  explicit writer(std::string& out, nonfinite nf = nonfinite::null) : out_(out), nonfinite_(nf) {}

  writer& begin_object() { return open('{'); }
  writer& end_object() { return close('{', '}'); }
  writer& begin_array() { return open('['); }
  writer& end_array() { return close('[', ']'); }

  // The next member's name; in an object, every value needs one.
  writer& key(std::string_view k) {
    if (stack_.empty() || stack_.back() != '{' || after_key_) misused_ = true;
    if (!first_) out_ += ',';
    write_string(out_, k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }

  writer& value(std::string_view s) {
    before_value();
    write_string(out_, s);
    return *this;
  }
  writer& value(const std::string& s) { return value(std::string_view(s)); }
  writer& value(const char* s) {
    if (!s) return null();
    return value(std::string_view(s));
  }
  writer& value(decltype(nullptr)) { return null(); }
  writer& value(char) = delete;  // a character is not a number: pass a string
  writer& value(bool b) {
    before_value();
    out_ += b ? "true" : "false";
    return *this;
  }
  writer& value(int v) { return integer(static_cast<long long>(v)); }
  writer& value(long v) { return integer(static_cast<long long>(v)); }
  writer& value(long long v) { return integer(v); }
  writer& value(unsigned v) { return integer(static_cast<unsigned long long>(v)); }
  writer& value(unsigned long v) { return integer(static_cast<unsigned long long>(v)); }
  writer& value(unsigned long long v) { return integer(v); }
  writer& value(double v) {
    before_value();
    number(v, false);
    return *this;
  }
  // A float32 value: its own shortest text ("0.1", not "0.10000000149011612").
  writer& value(float v) {
    before_value();
    number(v, true);
    return *this;
  }
  writer& null() {
    before_value();
    out_ += "null";
    return *this;
  }
  // A value that is already JSON text (the caller vouches for it).
  writer& raw(std::string_view json) {
    before_value();
    out_.append(json.data(), json.size());
    return *this;
  }

  template <class T>
  writer& member(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  // Whether every object/array was closed and no call was out of place.
  bool complete() const noexcept { return stack_.empty() && !misused_ && !after_key_; }
  int depth() const noexcept { return static_cast<int>(stack_.size()); }

 private:
  void before_value() {
    if (after_key_) {
      after_key_ = false;
    } else {
      if (!stack_.empty() && stack_.back() == '{') misused_ = true;  // a value without its key
      if (!first_) out_ += ',';
    }
    first_ = false;
  }
  writer& open(char c) {
    before_value();
    out_ += c;
    stack_ += c;
    first_ = true;
    return *this;
  }
  writer& close(char open_char, char c) {
    if (stack_.empty() || stack_.back() != open_char || after_key_) {
      misused_ = true;
    } else {
      stack_.pop_back();
    }
    out_ += c;
    first_ = false;
    return *this;
  }
  template <class I>
  writer& integer(I v) {
    before_value();
    char buf[24];
    char* const end = I(-1) < I(0) ? detail::put_int(buf, static_cast<long long>(v))
                                   : detail::put_uint(buf, static_cast<unsigned long long>(v));
    out_.append(buf, static_cast<size_t>(end - buf));
    return *this;
  }
  void number(double v, bool is_float) {
    if (!detail::fp_finite(v)) {
      if (nonfinite_ == nonfinite::null)
        out_ += "null";
      else
        out_ += detail::fp_nan(v) ? "NaN" : v < 0 ? "-Infinity" : "Infinity";
      return;
    }
    char buf[detail::shortest_text_capacity];
    const size_t n = is_float ? detail::write_shortest(buf, static_cast<float>(v)) : detail::write_shortest(buf, v);
    out_.append(buf, n);
  }

  std::string& out_;
  nonfinite nonfinite_;
  std::string stack_;  // '{' and '[' of the open containers
  bool first_ = true;
  bool after_key_ = false;
  bool misused_ = false;
};

}  // namespace json
PROBE_END_NAMESPACE
