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
#pragma once
#include <stdint.h>
#include <string.h>

#include <string>
#include <string_view>

#include "../util/float_text.hpp"
#include "../util/int_text.hpp"
#include "../util/text.hpp"

PROBE_BEGIN_NAMESPACE
namespace json {

// Appends s as a JSON string literal, quotes included (util/text.hpp says how).
inline void write_string(std::string& out, std::string_view s) { detail::append_json_string(out, s); }

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
    number(static_cast<double>(v), true);
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
